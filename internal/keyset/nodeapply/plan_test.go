package nodeapply

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rackroll/rackroll/internal/keyset"
	"github.com/stretchr/testify/require"
)

// Ids: the first free in rackroll's range, a uid or gid in use skipped;
// a user keeps its id; a full range is an error naming it.
func TestPlanIDs(t *testing.T) {
	files := map[string][]byte{
		PasswdFile: []byte("root:x:0:0:root:/root:/bin/zsh\nsite:x:60578:100::/home/site:/bin/sh\n" +
			"bob:x:60581:60581:rackroll keyset oncall:/home/bob:/bin/sh\n"),
		GroupFile: []byte("root:x:0:\nsite:x:60579:\nbob:x:60581:\n"),
	}
	p, err := MakePlan(files, keyset.NodeKeys{Users: []keyset.NodeUser{alice, bob, dave}})
	require.NoError(t, err)
	require.Equal(t, []int{60580, 60581, 60582}, []int{p.Users[0].UID, p.Users[1].UID, p.Users[2].UID})
	require.Equal(t, []bool{true, false, true}, []bool{p.Users[0].New, p.Users[1].New, p.Users[2].New})
	require.Contains(t, string(p.Files[PasswdFile]), "bob:x:60581:60581:rackroll keyset oncall:/home/bob:/bin/zsh\n", "root's shell, a shell the node has")
	require.Equal(t, "root:x:0:\nsite:x:60579:\nbob:x:60581:\nalice:x:60580:\ndave:x:60582:\n", string(p.Files[GroupFile]), "bob's group line, as it was, kept")
	require.NotContains(t, p.Files, ShadowFile, "a node without shadow gets none")

	var full strings.Builder
	full.WriteString(string(files[GroupFile]))
	for id := IDMin; id <= IDMax; id++ {
		fmt.Fprintf(&full, "g%d:x:%d:\n", id, id)
	}
	_, err = MakePlan(map[string][]byte{PasswdFile: files[PasswdFile], GroupFile: []byte(full.String())}, keyset.NodeKeys{Users: []keyset.NodeUser{alice}})
	require.ErrorContains(t, err, "user alice: no free uid and gid left in 60578–61183")
}

// Only a user with the marker and an id in the range is rackroll's: one
// with the marker elsewhere is the node's and stays; a group of the
// wanted name that is not the user's own is refused.
func TestPlanWhatIsRackrolls(t *testing.T) {
	passwd := "root:x:0:0:root:/root:/bin/bash\nmallory:x:1002:1002:rackroll keyset fake:/home/mallory:/bin/sh\n" +
		"toor:x:0:0:rackroll keyset x:/root:/bin/sh\nold:x:60600:60600:rackroll keyset gone:/home/old:/bin/sh\n"
	files := map[string][]byte{PasswdFile: []byte(passwd), GroupFile: []byte("root:x:0:\nold:x:60600:\nold2:x:5:\n")}
	require.Equal(t, []string{"old"}, names(Managed([]byte(passwd))))

	p, err := MakePlan(files, keyset.NodeKeys{})
	require.NoError(t, err)
	require.Equal(t, []string{"old"}, names(p.Removed))
	require.Equal(t, strings.TrimSuffix(passwd, "old:x:60600:60600:rackroll keyset gone:/home/old:/bin/sh\n"), string(p.Files[PasswdFile]))
	require.Equal(t, "root:x:0:\nold2:x:5:\n", string(p.Files[GroupFile]))

	_, err = MakePlan(files, keyset.NodeKeys{Users: []keyset.NodeUser{{Name: "old2", Keyset: "k", Privilege: keyset.Standard, Key: alice.Key},
		{Name: "toor", Keyset: "k", Privilege: keyset.Standard, Key: alice.Key}, {Name: "Eve", Keyset: "k", Privilege: keyset.Standard, Key: alice.Key}}})
	require.ErrorContains(t, err, "user old2: the node has a group of that name that rackroll did not make (gid 5)")
	require.ErrorContains(t, err, "user toor: the node has a user of that name that rackroll did not make (uid 0)")
	require.ErrorContains(t, err, `user "Eve": not an OS user name`)

	_, err = MakePlan(map[string][]byte{PasswdFile: []byte(passwd)}, keyset.NodeKeys{})
	require.ErrorContains(t, err, "/etc/group is missing under the root")
}

func names(us []User) []string {
	out := []string{}
	for _, u := range us {
		out = append(out, u.Name)
	}
	return out
}
