package toolcall

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// ownershipDocs are argument texts whose scans settle and start again:
// blank, then a value, then whitespace or bytes that break it; numbers at
// the top level (complete, yet held); nesting past the inline stack.
var ownershipDocs = []string{
	`{"a":1}`, "  \t{\"a\": [1, {\"b\": null}]}  \n", `[]`, `12`, `-0.5e+7`, " 12 ", `"s\u00e9"`,
	`true`, `null `, ` `, "\t\n", `{"a":1} x`, `{"a":1}{}`, `[1,]`, `{"a" 1}`, `01`, `1.`,
	`"\ud83d\ude00 \x"`, ` 7 8`, `{}`, `"abc`, `{"k":tru}`,
	strings.Repeat("[", 130) + strings.Repeat("]", 130),
	strings.Repeat("[", 135),
}

// checkOwnership checks the Assembler's scanners against its calls: no
// scanner held by two calls or both held and idle, the in-place bits
// exactly the in-place scanners held, a call holding one exactly while its
// scan is inside a value or failed, and every call's scan where a fresh
// scan of its whole arguments stands.
func checkOwnership(t *testing.T, a *Assembler, where string) {
	t.Helper()
	owner := map[*scanner]int{}
	var held uint8
	for pos := range a.calls {
		c := &a.calls[pos]
		var fresh scanner
		feed(&fresh, c.args)
		if c.sc == nil {
			if c.settled != scanValue && c.settled != scanDone {
				t.Fatalf("%s: call %d holds no scanner, settled in state %d", where, c.index, c.settled)
			}
			if fresh.state != c.settled || (c.settled == scanValue && !fresh.blank()) {
				t.Fatalf("%s: call %d settled %d, a fresh scan of %q stands at %d", where, c.index, c.settled, c.args, fresh.state)
			}
			continue
		}
		if p, ok := owner[c.sc]; ok {
			t.Fatalf("%s: calls at positions %d and %d share scanner %p", where, p, pos, c.sc)
		}
		owner[c.sc] = pos
		for i := range a.scans {
			if c.sc == &a.scans[i] {
				held |= 1 << i
			}
		}
		s := c.sc
		if s.state == scanDone || s.blank() {
			t.Fatalf("%s: call %d holds a scanner for a settled scan (state %d)", where, c.index, s.state)
		}
		if s.state != fresh.state || s.depth != fresh.depth || s.n != fresh.n || s.failed() != fresh.failed() ||
			(s.failed() && (s.faultAt != fresh.faultAt || s.reason() != fresh.reason())) {
			t.Fatalf("%s: call %d scan (state %d depth %d n %d fault %d@%d) differs from a fresh scan of %q (state %d depth %d n %d fault %d@%d)",
				where, c.index, s.state, s.depth, s.n, s.fault, s.faultAt, c.args, fresh.state, fresh.depth, fresh.n, fresh.fault, fresh.faultAt)
		}
		for d := range s.depth {
			if s.isObject(d) != fresh.isObject(d) {
				t.Fatalf("%s: call %d: level %d of %q read as the wrong container", where, c.index, d, c.args)
			}
		}
	}
	if held != a.scansHeld {
		t.Fatalf("%s: in-place scanners held %b, bits say %b", where, held, a.scansHeld)
	}
	for _, s := range a.idle {
		if p, ok := owner[s]; ok {
			t.Fatalf("%s: idle scanner %p is held by position %d", where, s, p)
		}
		for i := range a.scans {
			if s == &a.scans[i] {
				t.Fatalf("%s: in-place scanner %d among the idle", where, i)
			}
		}
		owner[s] = -1
	}
}

// TestScannerOwnershipModel interleaves calls whose scans settle and start
// again, over many Reset cycles, checking after every Add that no scanner is
// shared or lost, that each call's scan is a fresh scan of its arguments,
// and that Preview and Finalize say what those fresh scans say.
func TestScannerOwnershipModel(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 17))
		a := NewAssembler(WithMaxCalls(-1), WithMaxArgumentBytes(-1))
		maxOpen := 0
		for cycle := range 8 {
			ncalls := 1 + rng.IntN([]int{3, 6, 12, 40}[rng.IntN(4)])
			rest := make([]string, ncalls)
			for i := range rest {
				rest[i] = ownershipDocs[rng.IntN(len(ownershipDocs))]
			}
			for {
				var live []int
				for i, r := range rest {
					if r != "" {
						live = append(live, i)
					}
				}
				if len(live) == 0 {
					break
				}
				i := live[rng.IntN(len(live))]
				n := min(len(rest[i]), 1+rng.IntN(6))
				if err := a.Add(Fragment{Index: i, ID: "c" + strconv.Itoa(i), Name: "f", Arguments: rest[i][:n]}); err != nil {
					t.Fatal(err)
				}
				rest[i] = rest[i][n:]
				where := fmt.Sprintf("seed %d cycle %d after a fragment of call %d", seed, cycle, i)
				checkOwnership(t, a, where)
				if p, ok := a.Preview(i); !ok || p.Complete != a.freshComplete(i) {
					t.Fatalf("%s: Preview %+v, %v", where, p, ok)
				}
				open := 0
				for pos := range a.calls {
					if a.calls[pos].sc != nil {
						open++
					}
				}
				maxOpen = max(maxOpen, open)
				// Scanners are made only past the in-place ones, and kept:
				// never more than were held at once (one more within an
				// Add, by a scan that settles in the fragment it began).
				if heap := len(a.idle) + open - popCount(a.scansHeld); heap > max(0, maxOpen+1-inPlaceScanners) {
					t.Fatalf("%s: %d scanners made, at most %d held at once", where, heap, maxOpen)
				}
			}
			checkFinalize(t, a, fmt.Sprintf("seed %d cycle %d", seed, cycle))
			// Reused after Finalize: more bytes, then Finalize again.
			if rng.IntN(2) == 0 {
				i := rng.IntN(ncalls)
				if err := a.Add(Fragment{Index: i, Arguments: []string{" ", "x", "{", "1"}[rng.IntN(4)]}); err != nil {
					t.Fatal(err)
				}
				checkOwnership(t, a, fmt.Sprintf("seed %d cycle %d after Finalize", seed, cycle))
				checkFinalize(t, a, fmt.Sprintf("seed %d cycle %d again", seed, cycle))
			}
			a.Reset()
			if a.scansHeld != 0 {
				t.Fatalf("seed %d: Reset left in-place scanners held: %b", seed, a.scansHeld)
			}
			checkOwnership(t, a, "after Reset")
		}
	}
}

func popCount(b uint8) int { return bits.OnesCount8(b) }

// freshComplete is what a fresh scan of call i's arguments says of them.
func (a *Assembler) freshComplete(i int) bool {
	var s scanner
	feed(&s, a.calls[a.find(i)].args)
	return s.complete()
}

// checkFinalize checks Finalize against a fresh scan of each call's
// arguments: the same calls invalid, at the same offset, for the same
// reason.
func checkFinalize(t *testing.T, a *Assembler, where string) {
	t.Helper()
	calls, err := a.Finalize()
	var ce *CallsError
	if err != nil && !errors.As(err, &ce) {
		t.Fatalf("%s: Finalize: %v", where, err)
	}
	if ce != nil {
		calls = ce.Calls
	}
	var invalid []*ArgumentsError
	if ce != nil {
		invalid = ce.Invalid
	}
	for _, c := range calls {
		var s scanner
		feed(&s, c.Arguments)
		if s.complete() {
			if len(invalid) > 0 && invalid[0].Index == c.Index {
				t.Fatalf("%s: call %d %q reported invalid: %v", where, c.Index, c.Arguments, invalid[0])
			}
			continue
		}
		at := s.n
		if s.failed() {
			at = s.faultAt
		}
		if len(invalid) == 0 || invalid[0].Index != c.Index {
			t.Fatalf("%s: call %d %q not reported invalid", where, c.Index, c.Arguments)
		}
		if e := invalid[0]; e.Offset != at || e.Reason != s.reason() || e.Tail != tail([]byte(c.Arguments)) {
			t.Fatalf("%s: call %d %q: error at %d %q tail %q, a fresh scan says %d %q", where, c.Index, c.Arguments, e.Offset, e.Reason, e.Tail, at, s.reason())
		}
		invalid = invalid[1:]
	}
	if len(invalid) != 0 {
		t.Fatalf("%s: %d invalid calls left over", where, len(invalid))
	}
}

// TestScanSettlesAndBreaks follows one call blank → value → done → more
// bytes, one byte per fragment: it holds a scanner only inside the value
// and after the break, and the error is the one the whole text gives.
func TestScanSettlesAndBreaks(t *testing.T) {
	const doc = "  {\"a\": [1]}  x y"
	whole := NewAssembler()
	if err := whole.Add(Fragment{Index: 0, Name: "f", Arguments: doc}); err != nil {
		t.Fatal(err)
	}
	_, wantErr := whole.Finalize()

	a := NewAssembler()
	for i := range len(doc) {
		if err := a.Add(Fragment{Index: 0, Name: "f", Arguments: doc[i : i+1]}); err != nil {
			t.Fatal(err)
		}
		sofar := doc[:i+1]
		inside := i >= 2 && i < 11 // '{' through the byte before '}'
		broken := i >= 14
		if holds := a.calls[0].sc != nil; holds != (inside || broken) {
			t.Errorf("after %q: holds a scanner %v", sofar, holds)
		}
		if p, _ := a.Preview(0); p.Complete != (i >= 11 && !broken) {
			t.Errorf("after %q: Complete %v", sofar, p.Complete)
		}
	}
	_, err := a.Finalize()
	var got, want *ArgumentsError
	if !errors.As(err, &got) || !errors.As(wantErr, &want) || *got != *want || err.Error() != wantErr.Error() {
		t.Fatalf("byte by byte: %v (%+v); whole: %v (%+v)", err, got, wantErr, want)
	}
	if got.Offset != 14 || got.Reason != "invalid character 'x' after the top-level value" {
		t.Errorf("error %+v, want the 'x' at 14", got)
	}
}

// TestWhitespaceOnlyArguments: a fragment of whitespace only leaves the
// call blank and holding no scanner, its arguments "{}", and later bytes
// are counted from the start of the text.
func TestWhitespaceOnlyArguments(t *testing.T) {
	a := NewAssembler()
	for _, p := range []string{" ", "\n\t ", "  "} {
		if err := a.Add(Fragment{Index: 0, Name: "f", Arguments: p}); err != nil {
			t.Fatal(err)
		}
		if c := &a.calls[0]; c.sc != nil || !c.blank() || a.scansHeld != 0 {
			t.Fatalf("after %q: scanner %p, blank %v, held %b", p, c.sc, c.blank(), a.scansHeld)
		}
	}
	calls, err := a.Finalize()
	if err != nil || len(calls) != 1 || calls[0].Arguments != "{}" {
		t.Fatalf("Finalize: %+v, %v", calls, err)
	}
	if err := a.Add(Fragment{Index: 0, Arguments: "]"}); err != nil {
		t.Fatal(err)
	}
	_, err = a.Finalize()
	var ae *ArgumentsError
	if !errors.As(err, &ae) || ae.Offset != 6 || ae.Reason != "invalid character ']' looking for the beginning of a value" {
		t.Fatalf("Finalize: %v", err)
	}
}

// TestFailedScanKeepsItsScanner: a scan that failed holds its scanner to
// the end — later bytes, Finalize and more Adds after it do not move the
// offset — and gives it back at Reset for the next response.
func TestFailedScanKeepsItsScanner(t *testing.T) {
	a := NewAssembler()
	add := func(i int, args string) {
		t.Helper()
		if err := a.Add(Fragment{Index: i, Name: "f", Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	add(0, `{"a":1}`)
	add(0, ` }`) // fails at 8, after the value
	add(1, `[`)
	add(0, `{}`)
	for _, tail := range []string{`{"a":1} }{}`, `{"a":1} }{}x`} {
		_, err := a.Finalize()
		var ce *CallsError
		if !errors.As(err, &ce) || len(ce.Invalid) != 2 || ce.Invalid[0].Offset != 8 || ce.Invalid[0].Tail != tail || ce.Invalid[1].Offset != 1 {
			t.Fatalf("Finalize: %v", err)
		}
		checkOwnership(t, a, "failed")
		add(0, "x")
	}
	if popCount(a.scansHeld) != 2 {
		t.Fatalf("held %b, want the failed call's and the open one's", a.scansHeld)
	}
	a.Reset()
	add(0, `{"b":`)
	add(1, `[`)
	checkOwnership(t, a, "after Reset")
	add(0, `2}`)
	add(1, `]`)
	if calls, err := a.Finalize(); err != nil || calls[0].Arguments != `{"b":2}` || calls[1].Arguments != `[]` {
		t.Fatalf("after Reset: %+v, %v", calls, err)
	}
}

// TestZeroAssemblerScanners: the zero Assembler takes and gives back
// scanners like one from NewAssembler.
func TestZeroAssemblerScanners(t *testing.T) {
	var a Assembler
	for i := range 6 {
		if err := a.Add(Fragment{Index: i, Name: "f", Arguments: `{"a":[`}); err != nil {
			t.Fatal(err)
		}
	}
	checkOwnership(t, &a, "zero, six open")
	for i := range 6 {
		if err := a.Add(Fragment{Index: i, Arguments: `]}`}); err != nil {
			t.Fatal(err)
		}
	}
	checkOwnership(t, &a, "zero, six done")
	if a.scansHeld != 0 || len(a.idle) != 2 {
		t.Fatalf("held %b, %d idle; want none and 2", a.scansHeld, len(a.idle))
	}
	if calls, err := a.Finalize(); err != nil || len(calls) != 6 {
		t.Fatalf("Finalize: %d calls, %v", len(calls), err)
	}
}

// TestCallSlotSize guards the memory cut: a call's slot holds a pointer to
// a scanner, not a scanner (120 bytes where int has 64 bits).
func TestCallSlotSize(t *testing.T) {
	if got := unsafe.Sizeof(call{}); strconv.IntSize == 64 && got > 120 {
		t.Errorf("call is %d bytes, want at most 120", got)
	}
}

// TestManyOpenCallsDoNotAllocate: with more calls inside their arguments
// at once than the Assembler holds scanners in place, the scanners made
// are kept: once warmed up, Add allocates nothing, response after
// response.
func TestManyOpenCallsDoNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations")
	}
	const open = 3 * inPlaceScanners
	pieces := []string{" ", `{"a":`, `[1,`, `{"b":"x"}`, `]`, `}`, " "}
	a := NewAssembler()
	stream := func() {
		a.Reset()
		for _, p := range pieces {
			for i := range open {
				if err := a.Add(Fragment{Index: i, Name: "f", Arguments: p}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	stream() // warm up
	if allocs := testing.AllocsPerRun(20, stream); allocs != 0 {
		t.Errorf("%v allocations per response of %d calls open at once, want 0", allocs, open)
	}
	if len(a.idle) != open-inPlaceScanners || a.scansHeld != 0 {
		t.Errorf("%d idle, held %b; want %d and none", len(a.idle), a.scansHeld, open-inPlaceScanners)
	}
}
