package bmc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The one rule for "the BMC holds the image": every shape real BMCs show
// the same image in is accepted, a different image never is.
func TestJudgeImage(t *testing.T) {
	const want = "https://images.example:443/isos/rackroll-4.2.0.iso"
	cases := []struct {
		name string
		m    MediaInfo
		want string
		is   imageMatch
	}{
		{"the URL as sent", MediaInfo{Image: want, Inserted: true}, want, imageSame},
		{"default port dropped", MediaInfo{Image: "https://images.example/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"default port written", MediaInfo{Image: "http://images.example:80/i.iso", Inserted: true}, "http://images.example/i.iso", imageSame},
		{"host and scheme re-cased", MediaInfo{Image: "HTTPS://Images.EXAMPLE/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"percent-encoded path", MediaInfo{Image: "https://images.example/isos/rackroll%2D4.2.0.iso", Inserted: true}, want, imageSame},
		{"percent-encoded space", MediaInfo{Image: "http://h/my%20images/a.iso", Inserted: true}, "http://h/my images/a.iso", imageSame},
		{"user info not shown back", MediaInfo{Image: "http://h/a.iso", Inserted: true}, "http://u:p@h/a.iso", imageSame},
		{"file name only in Image", MediaInfo{Image: "rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"file name percent-encoded", MediaInfo{Image: "rackroll%2D4.2.0.iso", Inserted: true}, want, imageSame},
		{"ImageName only", MediaInfo{ImageName: "rackroll-4.2.0.iso", Inserted: true}, want, imageSame},
		{"inserted, nothing shown yet", MediaInfo{Inserted: true}, want, imagePending},
		{"empty", MediaInfo{}, want, imageAbsent},

		{"another file", MediaInfo{Image: "https://images.example/isos/rackroll-4.1.0.iso", Inserted: true}, want, imageOther},
		{"another host", MediaInfo{Image: "https://evil.example/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another port", MediaInfo{Image: "https://images.example:8443/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another scheme", MediaInfo{Image: "http://images.example/isos/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another directory", MediaInfo{Image: "https://images.example/old/rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another query", MediaInfo{Image: "http://h/a.iso?v=1", Inserted: true}, "http://h/a.iso?v=2", imageOther},
		{"path case matters", MediaInfo{Image: "https://images.example/isos/RACKROLL-4.2.0.iso", Inserted: true}, want, imageOther},
		{"another file name only", MediaInfo{Image: "rackroll-4.1.0.iso", Inserted: true}, want, imageOther},
		{"another ImageName only", MediaInfo{ImageName: "ubuntu.iso", Inserted: true}, want, imageOther},
		{"a full Image wins over ImageName", MediaInfo{Image: "https://evil.example/x.iso", ImageName: "rackroll-4.2.0.iso", Inserted: true}, want, imageOther},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.is, judgeImage(c.m, c.want))
		})
	}
}
