package aisdk

import (
	"context"
	"sync"
)

// The defaults of [NewMemoryStore].
const (
	// DefaultMaxChats is how many chats a MemoryStore keeps.
	DefaultMaxChats = 10000
	// DefaultMaxStreamBytes is how many bytes of chunks a MemoryStore
	// keeps of one chat's stream: 8 MiB, far more than one run's answer
	// within the loop's default context budget.
	DefaultMaxStreamBytes = 8 << 20
)

// MemoryStore is a [Store] in memory, for one process. It is bounded: it
// keeps at most maxChats chats, forgetting the one saved longest ago to
// make room, and at most maxStreamBytes of a stream's chunks. A chat whose
// stream goes on is never forgotten, so while more runs than maxChats go
// on (see [WithMaxRuns]) it keeps that many. A forgotten chat is unknown
// to the Handler: a browser posting its history gets 409. It is safe for
// concurrent use.
type MemoryStore struct {
	maxChats, maxBytes int

	mu    sync.Mutex
	chats map[string]*memChat
	clock uint64
}

type memChat struct {
	chat   Chat
	saved  uint64 // when, by the store's clock
	stream *memStream
}

type memStream struct {
	chunks [][]byte
	size   int
	done   bool
	cut    bool
	more   chan struct{}
}

// NewMemoryStore returns an empty MemoryStore keeping at most maxChats
// chats and maxStreamBytes bytes of chunks per stream; 0 takes
// [DefaultMaxChats] or [DefaultMaxStreamBytes], a negative value means no
// bound.
func NewMemoryStore(maxChats, maxStreamBytes int) *MemoryStore {
	if maxChats == 0 {
		maxChats = DefaultMaxChats
	}
	if maxStreamBytes == 0 {
		maxStreamBytes = DefaultMaxStreamBytes
	}
	return &MemoryStore{maxChats: maxChats, maxBytes: maxStreamBytes, chats: map[string]*memChat{}}
}

// Load implements [Store].
func (s *MemoryStore) Load(_ context.Context, chatID string) (Chat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.chats[chatID]
	if c == nil || c.saved == 0 {
		return Chat{}, ErrChatNotFound
	}
	return c.chat, nil
}

// Save implements [Store].
func (s *MemoryStore) Save(_ context.Context, chatID string, c Chat) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	mc := s.entry(chatID)
	s.clock++
	mc.chat, mc.saved = c, s.clock
	return nil
}

// entry returns the chat's entry, making room for a new one.
func (s *MemoryStore) entry(chatID string) *memChat {
	if mc := s.chats[chatID]; mc != nil {
		return mc
	}
	if s.maxChats > 0 && len(s.chats) >= s.maxChats {
		var oldest string
		var at uint64
		for id, mc := range s.chats {
			if (mc.stream == nil || mc.stream.done) && (oldest == "" || mc.saved < at) {
				oldest, at = id, mc.saved
			}
		}
		if oldest != "" {
			delete(s.chats, oldest)
		}
	}
	mc := &memChat{}
	s.chats[chatID] = mc
	return mc
}

// Begin implements [Store].
func (s *MemoryStore) Begin(_ context.Context, chatID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	mc := s.entry(chatID)
	if old := mc.stream; old != nil && !old.done {
		old.end()
	}
	mc.stream = &memStream{more: make(chan struct{})}
	return nil
}

// Append implements [Store].
func (s *MemoryStore) Append(_ context.Context, chatID string, chunk []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(chatID)
	if st == nil || st.done {
		return ErrNoStream
	}
	if s.maxBytes > 0 && st.size+len(chunk) > s.maxBytes {
		st.cut = true
		st.end()
		return ErrStreamTooLarge
	}
	st.chunks = append(st.chunks, chunk)
	st.size += len(chunk)
	close(st.more)
	st.more = make(chan struct{})
	return nil
}

// End implements [Store].
func (s *MemoryStore) End(_ context.Context, chatID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stream(chatID); st != nil && !st.done {
		st.end()
	}
	return nil
}

func (st *memStream) end() {
	st.done = true
	close(st.more)
	st.more = nil
}

// Read implements [Store].
func (s *MemoryStore) Read(_ context.Context, chatID string, from int) (StreamRead, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(chatID)
	if st == nil {
		return StreamRead{}, ErrNoStream
	}
	r := StreamRead{Done: st.done, Cut: st.cut, More: st.more}
	if from < len(st.chunks) {
		r.Chunks = st.chunks[from:len(st.chunks):len(st.chunks)]
	}
	return r, nil
}

func (s *MemoryStore) stream(chatID string) *memStream {
	if mc := s.chats[chatID]; mc != nil {
		return mc.stream
	}
	return nil
}
