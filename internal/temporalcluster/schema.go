package temporalcluster

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"

	"github.com/rackroll/rackroll/internal/toolbin"
)

// createSchemas creates both databases and migrates them to the schemas
// embedded in temporal-sql-tool, as an operator does before the first
// start (and again, update-schema only, after a server upgrade).
func createSchemas(ctx context.Context, pg *Postgres) error {
	tool, err := toolbin.Path(toolbin.TemporalSQLTool)
	if err != nil {
		return err
	}
	for db, schema := range map[string]string{Database: "postgresql/v12/temporal", VisibilityDatabase: "postgresql/v12/visibility"} {
		base := []string{"--plugin", Plugin, "--ep", "127.0.0.1", "--port", strconv.Itoa(pg.Port),
			"--user", User, "--password", pg.Password, "--db", db}
		for _, step := range [][]string{
			{"create-database"},
			{"setup-schema", "--version", "0.0"},
			{"update-schema", "--schema-name", schema},
		} {
			cmd := exec.CommandContext(ctx, tool, append(base, step...)...)
			cmd.Env = []string{"LC_ALL=C"} // the tool also reads SQL_* variables: none of the caller's
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("temporal-sql-tool %s on %s: %w\n%s", step[0], db, err, out)
			}
		}
	}
	return nil
}
