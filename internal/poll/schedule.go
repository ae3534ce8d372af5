package poll

import "time"

// Schedule is one wait's timetable. A schedule may keep state between calls
// (the default schedule's last mark, what a learned one reported to its
// Estimator), so each wait has its own.
type Schedule interface {
	// Next returns when to look next, counted from the start of the wait, after
	// the look l (the zero Look plans the first look).
	Next(l Look) time.Duration
}

// Look is what a wait knows of its latest look when it plans the next one.
// Times are counted from the start of the wait.
type Look struct {
	// N is how many looks the wait has made; 0 before the first.
	N int
	// Sent is when the latest look was sent, and At when its answer came.
	Sent, At time.Duration
	// RetryAfter is the answer's Retry-After, zero when it had none. The caller
	// bounds it.
	RetryAfter time.Duration
	// Failed says the look got an error instead of the task; otherwise it found
	// the task unfinished (a wait that found its task final looks no more).
	Failed bool
	// Progress is the share of the task the answer said was done, from 0 to
	// 1, when HasProgress says the answer carried one (new-api's "30%",
	// OpenAI's 0-100); the caller reads it as the service wrote it.
	Progress    float64
	HasProgress bool
}
