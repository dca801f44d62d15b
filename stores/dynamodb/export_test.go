package dynamodb

// ClassifiedFrom reports how failed conditional writes were classified so
// far: from the item the server returned with the failure, or by a GetItem.
func (s *Store) ClassifiedFrom() (server, read int64) {
	return s.oldFromServer.Load(), s.oldFromRead.Load()
}
