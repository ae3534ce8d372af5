package videofile

import (
	"context"
	"errors"
	"io"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/clipstore"
)

var _ client.SizedOutput = (*objectOutput)(nil)

// errDownloadRestarted ends the upload of a download that starts over: the
// store aborts it, so the key never holds its part.
var errDownloadRestarted = errors.New("the download started over")

// objectOutput streams a download into an object as it arrives, through
// clipstore's Write, which hashes it and aborts the upload unless the stream
// ends normally. A download that starts over (Reset) aborts the upload it fed
// and begins another, so no retry ever leaves a part of a clip at the key.
type objectOutput struct {
	ctx   context.Context
	store *clipstore.Store
	meta  clipstore.Meta
	opts  clipstore.WriteOptions
	// size is the length the next upload will receive, 0 when unknown.
	size int64

	pw   *io.PipeWriter
	done chan objectWrite
}

type objectWrite struct {
	written clipstore.Written
	err     error
}

func (o *objectOutput) start() {
	pr, pw := io.Pipe()
	o.pw, o.done = pw, make(chan objectWrite, 1)
	opts := o.opts
	opts.Size = o.size
	go func() {
		w, err := o.store.Write(o.ctx, pr, o.meta, opts)
		// A store that stopped reading (it failed) must not leave the
		// download blocked on the pipe.
		if err == nil {
			err = io.ErrClosedPipe
		}
		pr.CloseWithError(err)
		if errors.Is(err, io.ErrClosedPipe) {
			err = nil
		}
		o.done <- objectWrite{written: w, err: err}
	}()
}

func (o *objectOutput) Write(p []byte) (int, error) {
	if o.pw == nil {
		o.start()
	}
	n, err := o.pw.Write(p)
	if err != nil {
		res := <-o.done
		o.pw = nil
		if res.err != nil {
			return n, res.err
		}
		return n, err
	}
	return n, nil
}

// Reset aborts the upload in progress, if any; the next Write starts a new one.
func (o *objectOutput) Reset() error {
	o.abort(errDownloadRestarted)
	o.size = 0
	return nil
}

// Expect says how long the next upload is: the store can then take it in one
// request instead of parts held in memory.
func (o *objectOutput) Expect(size int64) {
	if o.pw == nil {
		o.size = size
	}
}

// abort ends the upload in progress without completing it.
func (o *objectOutput) abort(cause error) {
	if o.pw == nil {
		return
	}
	o.pw.CloseWithError(cause)
	<-o.done
	o.pw = nil
}

// finish completes the upload: the object appears whole, with its SHA-256.
func (o *objectOutput) finish() (clipstore.Written, error) {
	if o.pw == nil {
		o.start()
	}
	_ = o.pw.Close() // closing a pipe's writer never fails
	res := <-o.done
	o.pw = nil
	return res.written, res.err
}
