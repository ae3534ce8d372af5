package localfile

import "sync"

// Claim is a writer's plan to hold a file.
type Claim struct {
	// Path is the file's path as the writer spells it.
	Path string
	// Owner names the writer's clip; empty when it is not known yet.
	Owner string
}

// Claims remembers the file each writer plans to hold, so that two writers
// given one file, in any spelling, are told apart before either writes it.
// The zero value is ready to use.
type Claims struct {
	byFile sync.Map // canonical path -> Claim
}

// Claim records c unless its file is claimed already. It returns the file's
// canonical path and, when another writer claimed the file first, that claim
// and true. A second claim of one file by one known owner is taken for the
// same writer; a path that cannot be made canonical is not recorded.
func (cs *Claims) Claim(c Claim) (string, Claim, bool) {
	file, err := Canonical(c.Path)
	if err != nil {
		return c.Path, Claim{}, false
	}
	v, taken := cs.byFile.LoadOrStore(file, c)
	first, _ := v.(Claim)
	if !taken || c.Owner != "" && c.Owner == first.Owner {
		return file, Claim{}, false
	}
	return file, first, true
}
