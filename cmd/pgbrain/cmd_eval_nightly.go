package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/pgbrain/pgbrain/internal/budget"
	"github.com/pgbrain/pgbrain/internal/crossmodal"
	"github.com/pgbrain/pgbrain/internal/evalconfig"
	"github.com/pgbrain/pgbrain/internal/longmemeval"
	"github.com/pgbrain/pgbrain/internal/nightly"
	"github.com/pgbrain/pgbrain/internal/openai"
	"github.com/pgbrain/pgbrain/sample"
)

func evalNightlyCommand() *cli.Command {
	return &cli.Command{
		Name:  "nightly",
		Usage: "the nightly quality probe: LongMemEval on a fixture, answers scored by the cross-modal judges, under nightly.max_usd (off until enabled)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "fixture", Usage: "a LongMemEval-format dataset (default: the sample/longmemeval.json built into pgbrain)"},
			&cli.IntFlag{Name: "limit", Value: 5, Usage: "questions of the fixture to answer and score"},
			&cli.BoolFlag{Name: "json", Usage: "print the run's event as JSON"},
			&cli.BoolFlag{Name: "enable", Usage: "turn the probe on in config.json (nightly.enabled) and exit"},
			&cli.BoolFlag{Name: "disable", Usage: "turn the probe off in config.json and exit"},
			&cli.Float64Flag{Name: "max-usd", Usage: "with --enable: the budget cap per run (nightly.max_usd)"},
			&cli.BoolFlag{Name: "install-timer", Usage: "write a systemd user timer that runs the probe daily (~/.config/systemd/user) and enable it"},
		},
		Action: evalNightly,
	}
}

func evalNightly(c *cli.Context) error {
	const name = "eval nightly"
	if c.NArg() > 0 {
		return usageError("%s: unexpected argument %q", name, c.Args().First())
	}
	home, err := homeDir(c)
	if err != nil {
		return err
	}
	switch {
	case c.Bool("enable") && c.Bool("disable"):
		return usageError("%s: --enable and --disable contradict each other", name)
	case c.IsSet("max-usd") && !c.Bool("enable"):
		return usageError("%s: --max-usd goes with --enable (it sets nightly.max_usd)", name)
	case c.Bool("enable") || c.Bool("disable"):
		var cap *float64
		if c.IsSet("max-usd") {
			v := c.Float64("max-usd")
			cap = &v
		}
		if err := evalconfig.SetNightly(home, c.Bool("enable"), cap); err != nil {
			return err
		}
		s, err := evalconfig.Load(home, os.Getenv)
		if err != nil {
			return err
		}
		state := "disabled"
		if s.Nightly.Enabled {
			state = "enabled"
		}
		fmt.Fprintf(c.App.Writer, "nightly quality probe %s in %s (max_usd %.2f)\n", state, s.Path, s.Nightly.MaxUSD)
		return nil
	case c.Bool("install-timer"):
		return installNightlyTimer(c)
	}
	cfg, err := evalconfig.Load(home, os.Getenv)
	if err != nil {
		return err
	}
	if !cfg.Nightly.Enabled {
		fmt.Fprintf(c.App.ErrWriter, "pgbrain: %s: the nightly quality probe is disabled (it spends money on model calls); enable it with: %s\n", name, nightly.EnableCommand)
		if c.Bool("json") {
			// A script reading stdout learns why nothing ran.
			return writeJSON(c.App.Writer, map[string]any{"schema_version": 1, "outcome": "disabled", "enable": nightly.EnableCommand})
		}
		return nil
	}
	limit := c.Int("limit")
	if limit < 1 {
		return usageError("%s: --limit %d: give a positive number of questions", name, limit)
	}
	fixture := c.String("fixture")
	if fixture == "" {
		// The built-in fixture lets a timer run from any directory.
		dir, err := os.MkdirTemp("", "pgbrain-nightly-")
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer os.RemoveAll(dir)
		fixture = filepath.Join(dir, "longmemeval.json")
		if err := os.WriteFile(fixture, sample.LongMemEval, 0o600); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	sha, err := nightly.FixtureHash(fixture)
	if err != nil {
		return err
	}
	qs, err := longmemeval.Open(fixture)
	if err != nil {
		return err
	}
	defer qs.Close()
	var items []crossmodal.Item
	for i := 0; i < qs.Len() && i < limit; i++ {
		q, err := qs.Question(i)
		if err != nil {
			return err
		}
		items = append(items, crossmodal.Item{ID: q.QuestionID, Type: q.QuestionType, Task: q.Question})
	}
	prices, err := loadPrices(c)
	if err != nil {
		return err
	}
	meter := budget.NewMeter(prices)
	p := nightly.Probe{Questions: len(items), Prices: prices, MaxUSD: cfg.Nightly.MaxUSD, Meter: meter, FixtureSHA256: sha}
	answerCfg, aerr := openai.ChatFromEnv()
	slots, serr := crossModalSlots(nil, meter)
	switch {
	case errors.Is(aerr, openai.ErrNoChatModel):
		p.NoModelReason = "answering the fixture needs a chat model: " + aerr.Error()
	case aerr != nil:
		p.NoModelReason = aerr.Error()
	case serr != nil:
		p.NoModelReason = "scoring the answers: " + serr.Error()
	default:
		p.Slots = slots
		chat, err := openai.NewChat(answerCfg)
		if err != nil {
			p.Slots, p.NoModelReason = nil, err.Error()
			break
		}
		model := meter.Wrap(chat)
		ctxChars := longmemeval.DefaultContextChars
		// Each prompt holds at most ctxChars of history; a quarter token per
		// byte undercounts non-Latin text, so the estimate takes one per byte
		// for a tenth of it, and a generous answer.
		p.AnswerEstimate = budget.Estimate{Model: chat.Model(), Calls: len(items),
			PromptTokens: len(items) * (ctxChars/4 + ctxChars/10 + 1000), CompletionTokens: len(items) * 500}
		p.Answer = func(ctx context.Context) ([]longmemeval.Row, error) {
			return nightlyAnswers(c, qs, model, limit)
		}
	}
	e := p.Run(c.Context, items)
	b, dbErr := openBrain(c, connectingRole)
	if dbErr == nil {
		defer b.Close()
		dbErr = nightly.Record(c.Context, b.Pool, &e)
	}
	path, fileErr := nightly.AppendEvent(filepath.Join(home, "audit"), e)
	meter.Report(c.App.ErrWriter)
	if dbErr != nil || fileErr != nil {
		return fmt.Errorf("%s: recording the run: %w", name, errors.Join(dbErr, fileErr))
	}
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, e); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "nightly quality probe: %s (%d questions: %d pass, %d fail, %d inconclusive, %d error; estimated $%.4f of $%.2f)\n",
			e.Outcome, e.Questions, e.Pass, e.Fail, e.Inconclusive, e.Error, e.EstCostUSD, e.MaxUSD)
		if e.Reason != "" {
			fmt.Fprintf(c.App.Writer, "reason: %s\n", e.Reason)
		}
		fmt.Fprintf(c.App.Writer, "recorded as run %d in brain.eval_nightly_runs and in %s\n", e.RunID, path)
	}
	switch e.Outcome {
	case nightly.Pass:
		return nil
	case nightly.Fail:
		return cli.Exit("", 1)
	}
	return cli.Exit("", 2)
}

// nightlyAnswers runs LongMemEval on the fixture's first limit questions
// in a scratch database and returns the rows.
func nightlyAnswers(c *cli.Context, qs longmemeval.Questions, model longmemeval.Model, limit int) (rows []longmemeval.Row, err error) {
	st, err := openLongMemEvalScratch(c, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if derr := st.Drop(context.WithoutCancel(c.Context)); derr != nil && err == nil {
			err = derr
		}
	}()
	var buf bytes.Buffer
	if _, err := longmemeval.Run(c.Context, st, qs, nil, &buf, longmemeval.Options{Limit: limit, TopK: 10, Model: model}); err != nil {
		return nil, err
	}
	return longmemeval.ParseResults("the nightly run", &buf)
}

func installNightlyTimer(c *cli.Context) error {
	cfgDir, err := os.UserConfigDir()
	if err != nil {
		return fmt.Errorf("eval nightly --install-timer: finding your configuration folder (set HOME): %w", err)
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("eval nightly --install-timer: finding the pgbrain executable: %w", err)
	}
	var home string
	if c.IsSet("home") || os.Getenv("PGBRAIN_HOME") != "" {
		if home, err = homeDir(c); err != nil {
			return err
		}
	}
	in, err := nightly.InstallTimer(c.Context, nightly.InstallOptions{ConfigDir: cfgDir, Bin: bin, Home: home})
	fmt.Fprintf(c.App.Writer, "wrote %s\nwrote %s\n", in.Service, in.Timer)
	if len(in.ToRun) > 0 {
		fmt.Fprintln(c.App.Writer, "to enable the timer, run:")
		for _, cmd := range in.ToRun {
			fmt.Fprintf(c.App.Writer, "  %s\n", cmd)
		}
	}
	if err != nil {
		return err
	}
	if in.Enabled {
		fmt.Fprintf(c.App.Writer, "enabled %s (see 'systemctl --user list-timers')\n", nightly.TimerName)
	}
	fmt.Fprintf(c.App.Writer, "model settings (PGBRAIN_CHAT_*, PGBRAIN_CROSSMODAL_*, keys) go in %s; the probe runs only once enabled: %s\n",
		filepath.Join(cfgDir, nightly.EnvFile), nightly.EnableCommand)
	return nil
}
