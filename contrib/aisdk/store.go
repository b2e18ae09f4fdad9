package aisdk

import (
	"context"
	"errors"

	"github.com/airlock-go/airlock/agentloop"
)

// Store keeps what the [Handler] needs between requests: each chat's
// record and the stream of its latest run, so a browser that reconnects
// can replay it. Implementations must be safe for concurrent use; the
// Handler runs at most one run per chat at a time, and only that run
// writes the chat's stream. [MemoryStore] keeps both in memory.
type Store interface {
	// Load returns the chat's record, or [ErrChatNotFound].
	Load(ctx context.Context, chatID string) (Chat, error)
	// Save stores the chat's record, replacing the one before. The store
	// may keep c; the caller does not change it afterwards.
	Save(ctx context.Context, chatID string, c Chat) error
	// Begin starts an empty stream for the chat, in place of the one
	// before.
	Begin(ctx context.Context, chatID string) error
	// Append adds one chunk (the data of one event) to the chat's
	// stream; the store may keep chunk. Past the store's bound it
	// returns [ErrStreamTooLarge], keeps nothing more, and marks the
	// stream cut.
	Append(ctx context.Context, chatID string, chunk []byte) error
	// End marks the chat's stream finished.
	End(ctx context.Context, chatID string) error
	// Read returns the chunks of the chat's stream from index from on,
	// or [ErrNoStream] when the chat has none.
	Read(ctx context.Context, chatID string, from int) (StreamRead, error)
}

// StreamRead is what [Store.Read] found.
type StreamRead struct {
	// Chunks are the stream's chunks from the index asked for; the
	// reader must not modify them.
	Chunks [][]byte
	// Done reports that the stream ended (or was cut) and Chunks are the
	// last.
	Done bool
	// Cut reports that the stream passed the store's bound: chunks after
	// it were not kept.
	Cut bool
	// More is closed when chunks are added or the stream ends, so a
	// reader can wait for them; nil when Done.
	More <-chan struct{}
}

// Chat is a chat's record: the conversation as the browser was sent it,
// and as the loop holds it.
type Chat struct {
	// UI is the conversation as the browser holds it, built from what
	// the Handler sent: a posted conversation must begin with it.
	UI []UIMessage
	// State is where the chat's run stands: its conversation (with what
	// the browser never sees, such as the provider's continuity state)
	// and its pending calls; nil before the first run.
	State *agentloop.State
}

var (
	// ErrChatNotFound is returned by [Store.Load] for a chat it does not
	// have.
	ErrChatNotFound = errors.New("aisdk: chat not found")
	// ErrNoStream is returned by [Store.Read] for a chat with no stream.
	ErrNoStream = errors.New("aisdk: no stream for the chat")
	// ErrStreamTooLarge is returned by [Store.Append] past the store's
	// bound.
	ErrStreamTooLarge = errors.New("aisdk: stream larger than the store keeps")
)
