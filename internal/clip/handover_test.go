package clip

import (
	"slices"
	"testing"
)

func TestHandoverIsExclusive(t *testing.T) {
	t.Parallel()
	h := newHandover()
	h.offer(held("t1", "same", ""), false)
	h.offer(held("t2", "same", "16:9"), false)
	h.offer(held("t3", "changed since", ""), false)
	// Its replacement's plan resumes it: never abandoned, even before it is taken.
	h.offer(held("t4", "resumed by its own replacement", ""), true)

	first, ok1 := h.take(planned("same", ""))
	second, ok2 := h.take(planned("same", ""))
	if !ok1 || !ok2 || first == second {
		t.Fatalf("two identical clips took %q and %q, want two different tasks", first, second)
	}
	if _, ok := h.take(planned("same", "")); ok {
		t.Fatal("a third identical clip took a task: every offered task may be adopted once")
	}
	if h.claim(first) {
		t.Fatal("a task taken from the handover was claimed again through the journal")
	}
	var abandoned []string
	for _, c := range h.abandoned(planned("new", "")) {
		abandoned = append(abandoned, c.TaskID)
	}
	if !slices.Equal(abandoned, []string{"t3"}) {
		t.Fatalf("abandoned = %v, want [t3]", abandoned)
	}
	if got := h.abandoned(planned("new", "")); len(got) != 0 {
		t.Fatalf("abandoned reported %v twice", got)
	}
	// A claimed task is never offered again.
	h.offer(held("t1", "same", ""), false)
	if _, ok := h.take(planned("same", "")); ok {
		t.Fatal("a claimed task was offered again")
	}
}

func TestHandoverReleaseMakesATaskAvailableAgain(t *testing.T) {
	t.Parallel()
	h := newHandover()
	if !h.claim("t1") {
		t.Fatal("claim of a new task failed")
	}
	h.release("t1")
	if !h.claim("t1") {
		t.Fatal("a released task could not be claimed again")
	}
}
