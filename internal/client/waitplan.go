package client

import "time"

// waitPlan is one wait's schedule: what its looks saw and when it looks next,
// counted from the start of the wait. It holds no clock, so that WaitForVideo
// and the tests' simulated batches (waitplan_test.go) run the same decisions.
type waitPlan struct {
	c     *Client
	o     waitOptions
	u     float64 // the wait's shift fraction (see PollPolicy.Jitter)
	polls int
	// mark is the default schedule's mark of the latest look (see delay).
	mark time.Duration
	// unfinishedAt is when the latest look that found the task unfinished was
	// sent (0 while none has).
	unfinishedAt time.Duration
	// due is when the next look is planned; replannable says it follows the
	// schedule alone, not a Retry-After or a failure, so that news from other
	// waits may move it sooner.
	due         time.Duration
	replannable bool
}

// newWaitPlan plans the first look (due) of a wait that starts now.
func (c *Client) newWaitPlan(o waitOptions, u float64) *waitPlan {
	p := &waitPlan{c: c, o: o, u: u, replannable: true}
	if o.kind != nil {
		c.learner.running(*o.kind, p, 0)
	}
	p.due, p.mark = c.nextPoll(o, 0, 0, 0, u, 0, false)
	return p
}

// unfinished records that the look sent at sentAt found the task not final.
func (p *waitPlan) unfinished(sentAt time.Duration) {
	p.unfinishedAt = sentAt
	if p.o.kind != nil {
		p.c.learner.running(*p.o.kind, p, sentAt)
	}
}

// finished records that the look at elapsed found the clip done, which teaches
// the estimator how long tasks of the wait's kind take.
func (p *waitPlan) finished(elapsed time.Duration) {
	if p.o.kind != nil {
		p.end()
		p.c.learner.observe(*p.o.kind, p.unfinishedAt, elapsed)
	}
}

// end says the wait is over, whichever way it ended.
func (p *waitPlan) end() {
	if p.o.kind != nil {
		p.c.learner.ended(*p.o.kind, p)
	}
}

// next plans the look after one that ended at elapsed with this Retry-After
// (zero when none) or failure, and returns the delay until it.
func (p *waitPlan) next(elapsed, hint time.Duration, failed bool) time.Duration {
	var delay time.Duration
	delay, p.mark = p.c.nextPoll(p.o, p.polls, p.mark, elapsed, p.u, hint, failed)
	p.due, p.replannable = elapsed+delay, hint <= 0 && !failed
	return delay
}

// sooner moves the next look to the learned look, when what other waits of
// the kind taught puts one before the planned look, and returns its time.
func (p *waitPlan) sooner(elapsed time.Duration) (time.Duration, bool) {
	if !p.replannable {
		return 0, false
	}
	at, ok := p.c.learnedNext(p.o, p.polls, elapsed, p.u)
	if !ok || at >= p.due {
		return 0, false
	}
	p.due = at
	return at, true
}
