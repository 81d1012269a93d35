package temporalcluster

import (
	"context"
	"os"
	"testing"
)

func TestScratchPostgres(t *testing.T) {
	dir, _ := os.MkdirTemp("", "pgscratch-")
	defer os.RemoveAll(dir)
	pg, err := startPostgres(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(pg.Addr)
	pg.Stop()
}
