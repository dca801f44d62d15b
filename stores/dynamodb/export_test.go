package dynamodb

import (
	"context"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

// ClassifiedFrom reports how failed conditional writes were classified so
// far: from the item the server returned with the failure, or by a GetItem.
func (s *Store) ClassifiedFrom() (server, read int64) {
	return s.oldFromServer.Load(), s.oldFromRead.Load()
}

// CrashedCreate does the first two steps of a capped create (hidden put,
// slot) and stops, as a creator that dies before revealing its task.
func (s *Store) CrashedCreate(ctx context.Context, owner tasks.Owner) (string, error) {
	rec, err := storekit.NewRecord(s.cfg, owner, tasks.CreateParams{})
	if err != nil {
		return "", err
	}
	item, err := encode(rec)
	if err != nil {
		return "", err
	}
	item[attrPending] = num(1)
	if err := s.put(ctx, item); err != nil {
		return "", err
	}
	return rec.ID, s.reserve(ctx, owner, createdKey(rec.CreatedAt, rec.ID))
}
