package client

import "strconv"

// TaskKind is what makes tasks take about as long as each other: the same model
// asked for the same length, resolution and audio. Empty fields are the service's
// defaults. The waiter learns how long tasks of each kind take (poll.Estimator).
type TaskKind struct {
	Model      string
	Seconds    string
	Resolution string
	Audio      string // "true", "false" or "" when not asked for
}

// KindOf is the kind of the task that req submits.
func KindOf(req VideoRequest) TaskKind {
	k := TaskKind{Model: req.Model, Seconds: req.Seconds}
	if md := req.Metadata; md != nil {
		k.Resolution = md.Resolution
		if md.GenerateAudio != nil {
			k.Audio = strconv.FormatBool(*md.GenerateAudio)
		}
	}
	return k
}
