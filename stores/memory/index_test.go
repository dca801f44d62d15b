package memory

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// TestIndexMatchesSortedSlice drives the block index with random inserts
// removals and purges (many sharing a millisecond, so ids break ties) and compares
// every walk with a plainly sorted slice.
func TestIndexMatchesSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var x index
	var ref []*entry
	cmp := func(a, b *entry) int { return less(a, storekit.CursorOf(b.rec)) }
	for step := range 6000 {
		switch {
		case len(ref) > 0 && rng.IntN(100) == 0:
			// A purge: every entry created before a random instant, plus
			// those whose id ends in a random digit.
			cut := base.Add(time.Duration(rng.IntN(40)) * time.Millisecond)
			digit := fmt.Sprintf("%x", rng.IntN(16))
			gone := func(e *entry) bool {
				return e.rec.CreatedAt.Before(cut) || e.rec.ID[len(e.rec.ID)-1:] == digit
			}
			var seen []*entry
			x.removeWhere(func(e *entry) bool { seen = append(seen, e); return gone(e) })
			if !slices.Equal(seen, ref) {
				t.Fatalf("step %d: removeWhere did not see every entry once, in order", step)
			}
			ref = slices.DeleteFunc(ref, gone)
		case len(ref) > 0 && rng.IntN(4) == 0:
			i := rng.IntN(len(ref))
			x.remove(ref[i])
			ref = slices.Delete(ref, i, i+1)
		default:
			e := &entry{rec: tasks.Record{
				ID:        fmt.Sprintf("%08x", rng.Uint32()),
				CreatedAt: base.Add(time.Duration(rng.IntN(40)) * time.Millisecond),
			}}
			x.insert(e)
			pos, _ := slices.BinarySearchFunc(ref, e, cmp)
			ref = slices.Insert(ref, pos, e)
		}
		if step%500 != 0 {
			continue
		}
		var got []*entry
		x.after(nil, func(e *entry) bool { got = append(got, e); return true })
		if !slices.Equal(got, ref) {
			t.Fatalf("step %d: walk differs from the sorted reference", step)
		}
		for _, b := range x.blocks {
			if len(b) == 0 || len(b) > blockSize {
				t.Fatalf("step %d: block of %d entries", step, len(b))
			}
		}
		for range 20 {
			if len(ref) == 0 {
				break
			}
			i := rng.IntN(len(ref))
			c := storekit.CursorOf(ref[i].rec)
			var first *entry
			x.after(&c, func(e *entry) bool { first = e; return false })
			var want *entry
			if i+1 < len(ref) {
				want = ref[i+1]
			}
			if first != want {
				t.Fatalf("step %d: the entry after %v is wrong", step, c)
			}
		}
	}
	if x.empty() != (len(ref) == 0) {
		t.Fatal("empty() disagrees")
	}
}

func TestParseKey(t *testing.T) {
	id := storekit.NewID()
	k, ok := parseKey(id)
	if !ok {
		t.Fatalf("%s rejected", id)
	}
	if got := fmt.Sprintf("%x-%x-%x-%x-%x", k[0:4], k[4:6], k[6:8], k[8:10], k[10:16]); got != id {
		t.Errorf("round trip %s → %s", id, got)
	}
	for _, bad := range []string{"", "x", "{" + id + "}", "urn:uuid:" + id,
		"A" + id[1:], id[:8] + "x" + id[9:], id[:35] + "g", id + "0"} {
		if _, ok := parseKey(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// parseKeyReference is the straightforward reading of a canonical id that
// parseKey must agree with.
func parseKeyReference(id string) (taskKey, bool) {
	var k taskKey
	if len(id) != 36 {
		return k, false
	}
	n := 0
	for i := 0; i < len(id); i++ {
		c := id[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return k, false
			}
			continue
		}
		var v byte
		switch {
		case '0' <= c && c <= '9':
			v = c - '0'
		case 'a' <= c && c <= 'f':
			v = c - 'a' + 10
		default:
			return k, false
		}
		k[n/2] |= v << (4 * (1 - n%2))
		n++
	}
	return k, true
}

// TestParseKeyAgreesWithTheReference mutates fresh ids one byte at a time
// (every position, every byte value) and compares parseKey with the
// reference reading.
func TestParseKeyAgreesWithTheReference(t *testing.T) {
	for range 20 {
		id := []byte(storekit.NewID())
		for i := range id {
			orig := id[i]
			for c := 0; c < 256; c++ {
				id[i] = byte(c)
				k, ok := parseKey(string(id))
				rk, rok := parseKeyReference(string(id))
				if ok != rok || (ok && k != rk) {
					t.Fatalf("%q: parseKey %x %v, reference %x %v", id, k, ok, rk, rok)
				}
			}
			id[i] = orig
		}
	}
}
