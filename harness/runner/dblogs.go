package runner

import (
	"context"
	"errors"
	"fmt"
)

// A cell of a database target that fails is most often explained in the
// database's output, not the server's: a wrong password is a 500 from the
// server and "password authentication failed" in PostgreSQL's log; too
// many clients, a missing table, a database that stopped under load, the
// same. So whatever failed the cell, its reason carries the database
// service's last log lines and says whether it still runs.

// withDatabaseLogs adds to err, why a cell failed, the last log lines of
// the stack's database (its first replica of the service named dbService)
// and how it is: running, or how it ended. err is returned as it is when
// it names the database already (that container stopped, or readiness
// timed out waiting on it), when it is a skip or the run was interrupted,
// and for a stack without a database. A trial's failure stays one, with
// its number and kind.
func (s stack) withDatabaseLogs(ctx context.Context, err error) error {
	d, db := s.service(dbService)
	var skip *skipError
	if err == nil || db == nil || ctx.Err() != nil || errors.As(err, &skip) || namesContainer(err, db.id) {
		return err
	}
	how := "is running"
	switch st, serr := d.eng.Containers.State(ctx, db.id); {
	case serr != nil:
		how = "could not be inspected (" + serr.Error() + ")"
	case !st.Running:
		how = d.how(st)
	}
	note := fmt.Sprintf("the database, service %s, %s; its last log lines:\n%s", db.alias, how, d.logs(ctx, db.id, 15))
	if te, ok := err.(*trialError); ok { // the cell's reason is built from its parts
		return &trialError{n: te.n, err: fmt.Errorf("%w\n%s", te.err, note), why: te.why}
	}
	return fmt.Errorf("%w\n%s", err, note)
}

// namesContainer says whether err is about container id, with its log
// lines: id stopped, or readiness timed out waiting on it.
func namesContainer(err error, id string) bool {
	var stopped *stoppedError
	var nr *notReadyError
	return errors.As(err, &stopped) && stopped.id == id || errors.As(err, &nr) && nr.id == id
}

// service is the deployment of the stack's service name and its first
// replica; nil when the stack has none.
func (s stack) service(name string) (*deployment, *member) {
	for _, d := range s {
		for _, m := range d.members {
			if m.service == name {
				return d, m
			}
		}
	}
	return nil, nil
}
