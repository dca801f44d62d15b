package suites

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// racers is how many goroutines the concurrency specs start.
const racers = 12

// errTransitionRacer marks a racer that only moved between non-terminal
// statuses and so takes no part in choosing the winner.
var errTransitionRacer = errors.New("transition racer")

// race runs f(i) on racers goroutines released together and returns their
// errors.
func race(n int, f func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

var _ = describeStore("Concurrency", "concurrency", func(env *StoreEnv) {
	env.It("lets exactly one of many concurrent endings win", "MCPT-CONC-001", func(ctx SpecContext) {
		for round := 0; round < 10; round++ {
			r := env.Create(ctx, env.Owner)
			if round%2 == 1 {
				_, err := env.Store.Transition(ctx, env.Owner, r.ID, tasks.StatusInputRequired, "")
				Expect(err).NotTo(HaveOccurred())
			}
			results := make([]tasks.Record, racers)
			errs := race(racers, func(i int) error {
				var err error
				if i%4 == 3 {
					// Transitions race too; they may land before the end
					// or be refused after it, but never end the task.
					to := tasks.StatusInputRequired
					if i%8 == 7 {
						to = tasks.StatusWorking
					}
					_, err = env.Store.Transition(ctx, env.Owner, r.ID, to, "moving")
					if err == nil || errors.Is(err, tasks.ErrInvalidTransition) {
						return errTransitionRacer
					}
					return err
				}
				switch i % 3 {
				case 0:
					results[i], err = env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusCompleted, fmt.Sprint(i), resultOutcome(fmt.Sprintf(`{"winner":%d}`, i)))
				case 1:
					results[i], err = env.Store.Complete(ctx, env.Owner, r.ID, tasks.StatusFailed, fmt.Sprint(i), errorOutcome(int64(-32000-i), fmt.Sprint(i)))
				default:
					results[i], err = env.Store.Cancel(ctx, env.Owner, r.ID, fmt.Sprint(i))
				}
				return err
			})
			winner := -1
			for i, err := range errs {
				if errors.Is(err, errTransitionRacer) {
					continue
				}
				if err == nil {
					Expect(winner).To(Equal(-1), "round %d: both %d and %d ended the task", round, winner, i)
					winner = i
					continue
				}
				expectCode(err, tasks.ErrInvalidTransition, fmt.Sprintf("round %d: losing racer %d", round, i))
			}
			Expect(winner).NotTo(Equal(-1), "round %d: nobody ended the task", round)
			res, err := env.Store.Result(ctx, env.Owner, r.ID)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Status).To(Equal(results[winner].Status))
			Expect(res.StatusMessage).To(Equal(fmt.Sprint(winner)), "the stored message is not the winner's")
			switch winner % 3 {
			case 0:
				Expect(string(res.Outcome.Result)).To(Equal(fmt.Sprintf(`{"winner":%d}`, winner)))
			case 1:
				Expect(res.Outcome.Error.Code).To(Equal(int64(-32000 - winner)))
				Expect(res.Outcome.Error.Message).To(Equal(fmt.Sprint(winner)))
			default:
				Expect(res.Outcome.Error.Code).To(Equal(int64(wire.CodeRequestCancelled)))
			}
		}
	})

	env.It("keeps every concurrent variable write to distinct keys", "MCPT-CONC-002", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		const perRacer = 8
		errs := race(racers, func(i int) error {
			for j := 0; j < perRacer; j++ {
				key := fmt.Sprintf("server.r%d.k%d", i, j)
				if _, err := env.Store.SetVariables(ctx, env.Owner, r.ID, map[string]json.RawMessage{key: json.RawMessage(fmt.Sprint(j))}); err != nil {
					return err
				}
			}
			return nil
		})
		Expect(errors.Join(errs...)).NotTo(HaveOccurred())
		got := mustGet(ctx, env, env.Owner, r.ID)
		Expect(got.Variables).To(HaveLen(racers*perRacer), "variable updates were lost")
		Expect(got.Version).To(BeNumerically(">=", r.Version+racers*perRacer), "not every write bumped the version")
	})

	Context("with a small per-owner cap", func() {
		BeforeEach(func() { env.Config.MaxTasksPerOwner = limitCap })
		env.It("never lets concurrent creates exceed it", "MCPT-CONC-003", func(ctx SpecContext) {
			errs := race(racers, func(int) error {
				_, err := env.Store.Create(ctx, env.Owner, tasks.CreateParams{Method: wire.MethodToolsCall})
				return err
			})
			ok := 0
			for _, err := range errs {
				if err == nil {
					ok++
					continue
				}
				Expect(errors.Is(err, tasks.ErrLimit)).To(BeTrue(), "unexpected error %v", err)
			}
			Expect(ok).To(Equal(limitCap))
			Expect(listAll(ctx, env, env.Owner, 50)).To(HaveLen(limitCap))
		})
	})

	env.It("gives each concurrent change its own version", "MCPT-CONC-004", func(ctx SpecContext) {
		r := env.Create(ctx, env.Owner)
		versions := make([]int64, racers)
		errs := race(racers, func(i int) error {
			to := tasks.StatusInputRequired
			if i%2 == 1 {
				to = tasks.StatusWorking
			}
			got, err := env.Store.Transition(ctx, env.Owner, r.ID, to, fmt.Sprint(i))
			if err == nil {
				versions[i] = got.Version
			}
			if err != nil && errors.Is(err, tasks.ErrInvalidTransition) {
				return nil // a move to the status the task already has
			}
			return err
		})
		Expect(errors.Join(errs...)).NotTo(HaveOccurred())
		seen := map[int64]bool{}
		n := 0
		for _, v := range versions {
			if v == 0 {
				continue
			}
			Expect(seen).NotTo(HaveKey(v), "two changes share version %d", v)
			seen[v] = true
			n++
		}
		Expect(n).To(BeNumerically(">=", 1))
		Expect(mustGet(ctx, env, env.Owner, r.ID).Version).To(BeNumerically(">=", r.Version+int64(n)))
	})
})
