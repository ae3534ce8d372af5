// Package tally gathers what calls that run together find, so that the last one
// out reports it once: Terraform runs the operations of many resources at once
// and shows every diagnostic of every one.
package tally

import "sync"

// Tally counts calls in and out and gathers the lines they find. Its zero value
// is ready to use.
type Tally struct {
	mu       sync.Mutex
	inFlight int
	found    Found
}

// Found is what the calls of one batch found.
type Found struct {
	// Sources counts the calls that found a line; IDs names them, in the order
	// they ended.
	Sources int
	IDs     []string
	// Order holds each line once, in the order it was first found; Count says
	// how many sources found it.
	Order []string
	Count map[string]int
}

// Begin counts a call in; every Begin is followed by one End.
func (t *Tally) Begin() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inFlight++
}

// End counts a call out with the lines it found (none for a call that found
// nothing). When no other call is in flight and the batch found anything, it
// returns what the batch found, and the next batch starts empty.
func (t *Tally) End(id string, lines []string) (Found, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inFlight--
	if len(lines) > 0 {
		if t.found.Count == nil {
			t.found.Count = map[string]int{}
		}
		for _, l := range lines {
			if t.found.Count[l] == 0 {
				t.found.Order = append(t.found.Order, l)
			}
			t.found.Count[l]++
		}
		t.found.Sources++
		t.found.IDs = append(t.found.IDs, id)
	}
	if t.inFlight > 0 || t.found.Sources == 0 {
		return Found{}, false
	}
	found := t.found
	t.found = Found{}
	return found, true
}
