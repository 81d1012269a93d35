package wftest

import (
	"context"

	"github.com/rackroll/rackroll/activities/image"
	"github.com/rackroll/rackroll/internal/api"
	"go.temporal.io/sdk/testsuite"
)

// The fake site's image server: every image answers, but those the test
// named missing (404) and, by checksum, those whose content is not the
// inventory's.
func (f *FakeSite) mockImages(env *testsuite.TestWorkflowEnvironment) {
	f.answer(env, ia.CheckImage, "CheckImage", func(_ context.Context, in image.CheckInput) (api.ImageCheck, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		f.ImageChecks = append(f.ImageChecks, in)
		if f.MissingImages[in.URL] {
			return api.ImageCheck{URL: in.URL, Answer: "404 Not Found"}, nil
		}
		return api.ImageCheck{URL: in.URL, OK: true, Answer: "200 OK, 1024 bytes"}, nil
	})
}
