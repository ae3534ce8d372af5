package clipstore

import (
	"context"
	"errors"
	"fmt"
)

// Seal makes an object another writer put at the key into a stored clip of
// meta's task, as Write would have left it: it reads the object once to
// hash it and records the task, model and SHA-256 in its metadata. Vertex
// AI writes the clip into the team's bucket itself, so the provider never
// uploads it, and a later Stat tells the clip without reading it again. An
// object that already names the task and a SHA-256 (sealed before) is not
// read: its record is returned as it is. An object that names another task
// is left as it is (ErrExists). Only the metadata changes, on condition that
// the object is still the one hashed (see recordSHA256): one replaced while
// it was read is left as it is, with an error.
func (s *Store) Seal(ctx context.Context, meta Meta) (Written, error) {
	if meta.TaskID == "" {
		return Written{}, s.fail("sealing", errors.New("no task ID to record with the clip"))
	}
	obj, err := s.Stat(ctx)
	if err != nil {
		return Written{}, err
	}
	switch {
	case obj.TaskID == meta.TaskID && obj.SHA256 != "":
		return Written{Size: obj.Size, SHA256: obj.SHA256, Unchanged: true}, nil
	case obj.TaskID != "" && obj.TaskID != meta.TaskID:
		return Written{}, &Error{Op: "sealing", Location: s.loc.String(), Kind: KindExists,
			err: fmt.Errorf("the object holds the clip of task %s, not of task %s; it was left as it is", obj.TaskID, meta.TaskID)}
	}
	sum, version, err := s.hashObject(ctx)
	if err != nil {
		return Written{}, err
	}
	md := map[string]string{MetaTask: meta.TaskID, MetaModel: meta.Model, MetaSHA256: sum}
	if err := s.recordSHA256(ctx, obj.Size, obj.TaskID, version, md); err != nil {
		return Written{}, s.fail("recording the SHA-256 of", err)
	}
	return Written{Size: obj.Size, SHA256: sum}, nil
}
