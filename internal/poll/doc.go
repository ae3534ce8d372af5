// Package poll decides when a wait for an asynchronous task looks at the task
// next. It holds no HTTP and no client: a Schedule is a value that answers
// "when next?" from what the wait's looks saw, so that internal/client's
// waiter, the tests' simulated batches and make bench all run the same
// decisions.
//
// Three schedules implement it: Fixed (the provider's poll_interval),
// Budgeted (DefaultPolicy's fast start, then one look per Max, within a GET
// budget) and Learned (looks around the finish time that an Estimator learned
// from earlier tasks of the same kind, within the same budget). A Learned
// wait also uses two more signals when there are any: its batch (the waits of
// its kind that started before any finished, which share their looks and
// their first finishes, siblings.go) and the progress the service reports
// (progress.go). A Wait runs one schedule against the clock.
//
// See CONTRIBUTING.md, "Polling".
package poll
