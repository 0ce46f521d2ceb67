package filestore

import "github.com/google/uuid"

// newID returns a UUID v7: time-ordered, so ids sort by creation.
func newID() (uuid.UUID, error) { return uuid.NewV7() }
