package clip

// Note is one thing the lifecycle says to the user: a warning, or an error
// that stops the operation. The provider turns each into a diagnostic.
type Note struct {
	Error           bool
	Summary, Detail string
	// Attribute names the provider attribute an error concerns (journal_url);
	// empty for the resource.
	Attribute string
	// Call, when set, is a failed call to the service, which the provider words
	// as it words every such failure; Summary and Detail are then empty.
	Call *CallFailure
}

// CallFailure is a call to the service that failed: Summary is the
// diagnostic's ("Unable to Create Video"), Op which call it was.
type CallFailure struct {
	Summary string
	Op      Op
	Err     error
	// Lead, when set, opens the detail in place of the common wording, which
	// then only adds its advice and the original error.
	Lead string
}

// Op names a call to the service whose failure a note reports.
type Op int

const (
	OpGet Op = iota
	OpSubmit
	// OpWrongAddress is a call answered 404 by an address not proven to be the
	// service: base_url is most likely wrong.
	OpWrongAddress
	OpDelete
)

// Notes is what one operation of the lifecycle says, in order.
type Notes []Note

// Warn adds a warning.
func (n *Notes) Warn(summary, detail string) {
	*n = append(*n, Note{Summary: summary, Detail: detail})
}

// Fail adds an error; attribute names the provider attribute it concerns, or
// is empty.
func (n *Notes) Fail(attribute, summary, detail string) {
	*n = append(*n, Note{Error: true, Attribute: attribute, Summary: summary, Detail: detail})
}

// FailCall adds the error of a failed call to the service.
func (n *Notes) FailCall(summary string, op Op, err error) {
	*n = append(*n, Note{Error: true, Call: &CallFailure{Summary: summary, Op: op, Err: err}})
}

// HasError reports whether any note is an error.
func (n Notes) HasError() bool {
	for _, x := range n {
		if x.Error {
			return true
		}
	}
	return false
}
