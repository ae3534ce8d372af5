// Package mockapi is an offline, faithful stand-in for the asynchronous
// video-generation API described in the API spec. It is an http.Handler that
// provider acceptance tests run in-process (httptest.NewServer(srv)) and that
// cmd/videogen-mock serves on its own.
//
// Endpoints follow the spec: POST /v1/video/generations, GET
// /v1/video/generations/{task_id} and GET /v1/models, all behind bearer
// authentication. Tasks move from submitted to running at 25% of their
// duration and to succeeded or failed at 100%; only successes are billed.
//
// Prompts may carry markers that steer one task:
//
//	[mock:fail]            the task ends failed (Config.FailMarker)
//	[mock:duration=30s]    the task takes this long instead of Config.TaskDuration
//	[mock:html]            the clip URL serves an HTML page instead of an MP4
//
// Endpoints outside /v1 need no key:
//
//	GET    /_mock/clips/{task_id}.mp4?sig=...   signed clip download (GET, HEAD, Range)
//	GET    /_mock/ledger                        the Ledger as JSON
//	DELETE /_mock/tasks/{task_id}               Server.DeleteTask
//	POST   /_mock/expire-urls                   Server.ExpireURLs
package mockapi
