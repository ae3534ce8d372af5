package journal

// Why an entry matching a request is not adopted, or why it is.
type Standing int

const (
	// Adoptable: the run that submitted it died before Terraform could save it.
	Adoptable Standing = iota
	// AdoptableEnded: the run that submitted it ended normally, yet no state
	// was seen holding it: Terraform may have been killed before it saved the
	// state. A plan cannot tell whether a resource it has yet to plan holds it,
	// so only the apply, once the plan's every resource was planned (and every
	// prior state that holds it has removed it), adopts it.
	AdoptableEnded
	// AdoptableOlder: an older provider wrote it, which recorded no run; it
	// adopted such entries, and so does this one.
	AdoptableOlder
	// RunAlive: the run that submitted it still runs (another process, or an
	// orphaned provider of a Terraform that was killed).
	RunAlive
)

// Match is an entry for the request a plan or an apply creates, with its standing.
type Match struct {
	Entry
	Standing Standing
}
