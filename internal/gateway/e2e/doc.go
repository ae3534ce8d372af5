// Package e2e holds the end-to-end gateway test: the provider, through the
// real CLI, against a real new-api (an open-source AI gateway that serves
// this API) with Doubao, Kling, Sora and Veo video channels, each in front
// of its upstream's stand-in from package upstream. It runs only with
// VIDEOGEN_GATEWAY_E2E=1 and VIDEOGEN_NEW_API naming the new-api binary, as
// `make gateway-e2e` sets (which also builds new-api and runs the test in a
// private network namespace where it may).
package e2e
