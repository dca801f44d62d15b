package memory

import (
	"slices"

	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// blockSize bounds the length of one block of the ordered index. Inserting
// into the middle of a block copies at most this many pointers, so Create
// stays cheap even for an owner with very many tasks created in the same
// millisecond (whose ids then sort randomly).
const blockSize = 256

// index keeps one owner's tasks in list order, (CreatedAt, ID), as a list
// of sorted blocks. Lookups are binary searches; a page is read by walking
// forward from the cursor position, so List costs O(log n + page).
type index struct {
	blocks [][]*entry
}

// less orders entries the way storekit.Cursor does.
func less(a *entry, c storekit.Cursor) int {
	if !a.rec.CreatedAt.Equal(c.CreatedAt) {
		if a.rec.CreatedAt.Before(c.CreatedAt) {
			return -1
		}
		return 1
	}
	switch {
	case a.rec.ID < c.ID:
		return -1
	case a.rec.ID > c.ID:
		return 1
	}
	return 0
}

// blockFor returns the index of the first block whose last entry is not
// before c, or len(blocks) when every entry sorts before c.
func (x *index) blockFor(c storekit.Cursor) int {
	i, _ := slices.BinarySearchFunc(x.blocks, c, func(b []*entry, c storekit.Cursor) int {
		return less(b[len(b)-1], c)
	})
	return i
}

// insert adds e in order.
func (x *index) insert(e *entry) {
	c := storekit.CursorOf(e.rec)
	bi := x.blockFor(c)
	if bi == len(x.blocks) {
		if bi > 0 && len(x.blocks[bi-1]) < blockSize {
			x.blocks[bi-1] = append(x.blocks[bi-1], e)
			return
		}
		x.blocks = append(x.blocks, make([]*entry, 0, 16))
		x.blocks[bi] = append(x.blocks[bi], e)
		return
	}
	b := x.blocks[bi]
	pos, _ := slices.BinarySearchFunc(b, c, less)
	b = slices.Insert(b, pos, e)
	if len(b) > blockSize {
		half := len(b) / 2
		right := slices.Clone(b[half:])
		b = slices.Clip(b[:half:half])
		x.blocks[bi] = b
		x.blocks = slices.Insert(x.blocks, bi+1, right)
		return
	}
	x.blocks[bi] = b
}

// remove deletes e if present.
func (x *index) remove(e *entry) {
	c := storekit.CursorOf(e.rec)
	bi := x.blockFor(c)
	if bi == len(x.blocks) {
		return
	}
	b := x.blocks[bi]
	pos, ok := slices.BinarySearchFunc(b, c, less)
	if !ok {
		return
	}
	b = slices.Delete(b, pos, pos+1)
	if len(b) == 0 {
		x.blocks = slices.Delete(x.blocks, bi, bi+1)
		return
	}
	x.blocks[bi] = b
}

// removeWhere deletes, in one pass, every entry for which gone returns
// true; gone sees each entry once, in order. Blocks left empty are
// dropped; the others keep their order (some may end up short).
func (x *index) removeWhere(gone func(*entry) bool) {
	blocks := x.blocks[:0]
	for _, b := range x.blocks {
		kept := b[:0]
		for _, e := range b {
			if !gone(e) {
				kept = append(kept, e)
			}
		}
		clear(b[len(kept):])
		if len(kept) > 0 {
			blocks = append(blocks, kept)
		}
	}
	clear(x.blocks[len(blocks):])
	x.blocks = blocks
}

// empty reports whether the index holds no entries.
func (x *index) empty() bool { return len(x.blocks) == 0 }

// after calls yield for every entry sorting strictly after c (from the
// start when c is nil), in order, until yield returns false.
func (x *index) after(c *storekit.Cursor, yield func(*entry) bool) {
	bi, pos := 0, 0
	if c != nil {
		bi = x.blockFor(*c)
		if bi == len(x.blocks) {
			return
		}
		var found bool
		pos, found = slices.BinarySearchFunc(x.blocks[bi], *c, less)
		if found {
			pos++
		}
	}
	for ; bi < len(x.blocks); bi, pos = bi+1, 0 {
		for _, e := range x.blocks[bi][pos:] {
			if !yield(e) {
				return
			}
		}
	}
}
