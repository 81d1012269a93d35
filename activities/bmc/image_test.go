package bmc

import (
	"testing"

	"github.com/rackroll/rackroll/activities/bmc/bmcclient"
	"github.com/stretchr/testify/assert"
)

// The one rule for "the BMC holds the image": every shape real BMCs show
// the same image in is accepted, a different image never is.
func TestJudgeImage(t *testing.T) {
	const want = "https://images.example:443/isos/rackroll-4.2.0.iso"
	cases := []struct {
		name string
		m    bmcclient.MediaInfo
		want string
		is   imageMatch
	}{
		{"the URL as sent", bmcclient.MediaInfo{Image: want, Inserted: true}, want, imageSame},
		{"default port dropped", bmcclient.MediaInfo{Image: "https://images.example/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"default port written", bmcclient.MediaInfo{Image: "http://images.example:80/i.iso", Inserted: true}, "http://images.example/i.iso", imageSame},
		{"host and scheme re-cased", bmcclient.MediaInfo{Image: "HTTPS://Images.EXAMPLE/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"percent-encoded path", bmcclient.MediaInfo{Image: "https://images.example/isos/rackroll%2D4.2.0.iso", Inserted: true}, want, imageSame},
		{"percent-encoded space", bmcclient.MediaInfo{Image: "http://h/my%20images/a.iso", Inserted: true}, "http://h/my images/a.iso", imageSame},
		{"user info not shown back", bmcclient.MediaInfo{Image: "http://h/a.iso", Inserted: true}, "http://u:p@h/a.iso", imageSame},
		{"file name only in Image", bmcclient.MediaInfo{Image: "rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"file name percent-encoded", bmcclient.MediaInfo{Image: "rackroll%2D4.2.0.iso", Inserted: true}, want, imageSame},
		{"ImageName only", bmcclient.MediaInfo{ImageName: "rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"inserted, nothing shown yet", bmcclient.MediaInfo{Inserted: true}, want, imagePending},
		{"empty", bmcclient.MediaInfo{}, want, imageAbsent},

		{"another file", bmcclient.MediaInfo{Image: "https://images.example/isos/rackroll-4.1.0.iso", Inserted: true}, want, imageOther},
		{"another host", bmcclient.MediaInfo{Image: "https://evil.example/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another port", bmcclient.MediaInfo{Image: "https://images.example:8443/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another scheme", bmcclient.MediaInfo{Image: "http://images.example/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another directory", bmcclient.MediaInfo{Image: "https://images.example/old/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another query", bmcclient.MediaInfo{Image: "http://h/a.iso?v=1", Inserted: true}, "http://h/a.iso?v=2", imageOther},
		{"path case matters", bmcclient.MediaInfo{Image: "https://images.example/isos/RACKROLL-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another file name only", bmcclient.MediaInfo{Image: "rackroll-4.1.0.iso", Inserted: true}, want, imageOther},
		{"another ImageName only", bmcclient.MediaInfo{ImageName: "ubuntu.iso", Inserted: true}, want, imageOther},
		{"a full Image wins over ImageName", bmcclient.MediaInfo{Image: "https://evil.example/x.iso", ImageName: "rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.is, judgeImage(c.m, c.want))
		})
	}
}
