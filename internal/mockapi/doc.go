// Package mockapi is an offline, faithful stand-in for the asynchronous
// video-generation API the provider talks to (the contract as this project
// understands it is written down in CONTRIBUTING.md). It is an http.Handler
// that provider acceptance tests run in-process (internal/acctest.NewMock) and
// that cmd/videogen-mock serves on its own.
//
// Endpoints: POST /v1/video/generations, GET /v1/video/generations/{task_id}
// and GET /v1/models, all behind bearer authentication. Tasks move from
// submitted to running at 25% of their duration and to succeeded or failed at
// 100%; only successes are billed.
//
// Config.Dialect chooses how it answers: DialectOpenAI (the default) in the
// shapes CONTRIBUTING.md describes, DialectNewAPI as the new-api gateway
// v0.10.0 does in front of a Doubao video channel (an envelope around its
// task record, NOT_START ... SUCCESS/FAILURE, the clip URL in fail_reason,
// 400 task_not_exist, 503 model_not_found, and only model and prompt
// reaching the upstream). Tests pick it with WithDialect. Config.KeyedClips
// (WithKeyedClips) serves clips as new-api does for its Sora and Veo
// channels: at GET /v1/videos/{task_id}/content on the mock's own address,
// behind the key, instead of at signed URLs.
//
// Prompts may carry markers that steer one task:
//
//	[mock:fail]            the task ends failed (Config.FailMarker)
//	[mock:duration=30s]    the task takes this long instead of Config.TaskDuration
//	[mock:hold]            the task stays running until FinishTask or FailTask (Config.HoldTasks: every task)
//	[mock:html]            the clip URL serves an HTML page instead of an MP4
//
// # Driving tasks from tests
//
// Tests must not depend on the clock or the machine's load, so they steer
// tasks explicitly instead of choosing short durations and sleeping:
//
//   - FinishTask(id) makes a pending task succeed (and be billed) now;
//     FailTask(id, reason) makes it fail now. Together with [mock:hold] or
//     Config.HoldTasks, a test decides exactly when a task ends, for example
//     between two Terraform steps.
//   - AwaitTasks(ctx, n) returns once n tasks were submitted,
//     AwaitGets(ctx, id, n) once a task was read n times and
//     AwaitWebhooks(ctx, id, n) once n webhook attempts were recorded, so a
//     test acts at the moment the provider is waiting, or checks the ledger
//     once it is complete, rather than after a guessed delay.
//   - DeleteTask(id) makes a task vanish service-side; ExpireURLs revokes every
//     clip URL handed out so far.
//   - Config.GatewayFailuresAfterSubmit (or SetGatewayFailuresAfterSubmit)
//     simulates a gateway that times out after forwarding a submission: the
//     task is created, billed when it succeeds, yet the client gets a 504 with
//     an HTML page. LedgerTask.SubmitStatus records which tasks were hidden so.
//   - RateLimitSubmissions(n) answers the next n submissions 429 whatever
//     the rate limit's bucket holds, so a test meets the limit however fast
//     or slow the machine sends its requests.
//
// The Ledger is the bill: every task received, requests and responses counted,
// webhook attempts made. It never contains API keys.
//
// Endpoints outside /v1 need no key; Controls lists them (the ledger as JSON,
// finish and fail of a held task, DELETE of a task, expiry of every clip URL, the
// signed clip downloads), and videogen-mock -help prints them.
package mockapi
