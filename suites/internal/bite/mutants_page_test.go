package bite_test

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// Mutants that page wrongly.
var pagingMutants = []mutant{
	{"the cursor skips tasks created in the same millisecond", "MCPT-PAGE-001", func(cfg tasks.Config) tasks.Store {
		return newShadowLister(cfg, listStrictTime)
	}},
	{"tasks ordered by id alone", "MCPT-PAGE-001", func(cfg tasks.Config) tasks.Store { return newShadowLister(cfg, listByID) }},
	{"each page newest first", "MCPT-PAGE-001", func(cfg tasks.Config) tasks.Store { return pageHook{track(cfg), pageReversed} }},
	{"pages hold one task too many", "MCPT-PAGE-003", func(cfg tasks.Config) tasks.Store { return pageHook{track(cfg), pagePlusOne} }},
	{"a full page never gets a next cursor", "TASKS-LIST-002", func(cfg tasks.Config) tasks.Store { return pageHook{track(cfg), pageNoCursor} }},
	{"a cursor it cannot read starts over", "TASKS-ERR-002", func(cfg tasks.Config) tasks.Store { return pageHook{track(cfg), pageGarbageRestarts} }},
	{"the cursor names a task that must still exist", "TASKS-PAGE-003", func(cfg tasks.Config) tasks.Store {
		return newShadowLister(cfg, listCursorByID)
	}},
	{"the cursor is an offset", "MCPT-PAGE-004", func(cfg tasks.Config) tasks.Store { return newShadowLister(cfg, listOffset) }},
}

// What a page hook does to the memory store's pages.
const (
	pageReversed = iota
	pagePlusOne
	pageNoCursor
	pageGarbageRestarts
)

type pageHook struct {
	*tracker
	mode int
}

func (s pageHook) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	limit := s.cfg.PageLimit(opts.Limit)
	switch s.mode {
	case pagePlusOne:
		opts.Limit = limit + 1
	case pageGarbageRestarts:
		if _, err := storekit.DecodeCursor(opts.Cursor); opts.Cursor != "" && err != nil {
			opts.Cursor = ""
		}
	}
	page, err := s.tracker.List(ctx, owner, opts)
	if err != nil {
		return page, err
	}
	switch s.mode {
	case pageReversed:
		slices.Reverse(page.Tasks)
	case pageNoCursor:
		if len(page.Tasks) == limit {
			page.NextCursor = ""
		}
	}
	return page, nil
}

// How a shadow lister builds its pages from the tracker's shadow.
const (
	listWithExpired         = iota // expired tasks are listed until deleted
	listAllOwnersAfterFirst        // pages after the first show every owner's tasks
	listStrictTime                 // the cursor keeps only tasks created strictly later
	listByID                       // order and cursor by id alone
	listCursorByID                 // the cursor is the last task's id, looked up again
	listOffset                     // the cursor counts the tasks already listed
)

// shadowLister lists from the tracker's shadow, the way a store with the
// given mistake would.
type shadowLister struct {
	*tracker
	mode int
}

func newShadowLister(cfg tasks.Config, mode int) tasks.Store {
	return shadowLister{track(cfg), mode}
}

func badCursor() error {
	return &tasks.Error{Op: "list", Err: tasks.ErrInvalidCursor}
}

func (s shadowLister) List(ctx context.Context, owner tasks.Owner, opts tasks.ListOptions) (tasks.Page, error) {
	if err := ctx.Err(); err != nil {
		return tasks.Page{}, err
	}
	now := s.cfg.Now()
	limit := s.cfg.PageLimit(opts.Limit)
	allOwners := s.mode == listAllOwnersAfterFirst && opts.Cursor != ""
	recs := s.shadows(func(r tasks.Record) bool {
		return !s.gone(r.ID) && (r.Owner == owner || allOwners) && (!r.Expired(now) || s.mode == listWithExpired)
	})
	if s.mode == listByID {
		slices.SortFunc(recs, func(a, b tasks.Record) int { return strings.Compare(a.ID, b.ID) })
	}
	start := 0
	switch {
	case opts.Cursor == "":
	case s.mode == listOffset:
		n, err := strconv.Atoi(strings.TrimPrefix(opts.Cursor, "o."))
		if err != nil || !strings.HasPrefix(opts.Cursor, "o.") || n < 0 {
			return tasks.Page{}, badCursor()
		}
		start = min(n, len(recs))
	case s.mode == listCursorByID:
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(opts.Cursor, "k."))
		if err != nil || !strings.HasPrefix(opts.Cursor, "k.") {
			return tasks.Page{}, badCursor()
		}
		last, ok := s.snapshot(string(raw))
		if !ok || s.gone(last.ID) || last.Expired(now) {
			return tasks.Page{}, &tasks.Error{Op: "list", Err: tasks.ErrInvalidCursor, Detail: "the cursor's task is gone"}
		}
		c := storekit.CursorOf(last)
		start = len(recs)
		if i := slices.IndexFunc(recs, c.After); i >= 0 {
			start = i
		}
	default:
		c, err := storekit.DecodeCursor(opts.Cursor)
		if err != nil {
			return tasks.Page{}, err
		}
		start = len(recs)
		if i := slices.IndexFunc(recs, func(r tasks.Record) bool {
			switch s.mode {
			case listStrictTime:
				return r.CreatedAt.After(c.CreatedAt)
			case listByID:
				return r.ID > c.ID
			}
			return c.After(r)
		}); i >= 0 {
			start = i
		}
	}
	end := min(start+limit, len(recs))
	page := tasks.Page{Tasks: recs[start:end]}
	for i := range page.Tasks {
		page.Tasks[i].Outcome = nil
	}
	if end < len(recs) && len(page.Tasks) > 0 {
		last := page.Tasks[len(page.Tasks)-1]
		switch s.mode {
		case listOffset:
			page.NextCursor = "o." + strconv.Itoa(end)
		case listCursorByID:
			page.NextCursor = "k." + base64.RawURLEncoding.EncodeToString([]byte(last.ID))
		default:
			page.NextCursor = storekit.CursorOf(last).Encode()
		}
	}
	return page, nil
}
