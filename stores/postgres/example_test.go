package postgres_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/mcptasks/mcptasks/stores/postgres"
	"github.com/mcptasks/mcptasks/tasks"
)

// Open a store on a PostgreSQL database (the schema is created on first
// use) and run a task through its life. Several server instances may open
// the same database; a Wait in one wakes when another finishes the task.
func ExampleOpen() {
	ctx := context.Background()
	st, err := postgres.Open(ctx, "postgres://tasks@127.0.0.1:5432/tasks?sslmode=disable",
		tasks.Config{MaxTasksPerOwner: 100, DefaultTTL: time.Hour})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	rec, err := st.Create(ctx, "sub:alice", tasks.CreateParams{Method: "tools/call"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := st.Complete(ctx, "sub:alice", rec.ID, tasks.StatusCompleted, "done",
		tasks.Outcome{Result: []byte(`{"content":[]}`)}); err != nil {
		log.Fatal(err)
	}
	res, err := st.Result(ctx, "sub:alice", rec.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, string(res.Outcome.Result))
}
