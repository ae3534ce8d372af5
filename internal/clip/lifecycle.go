package clip

import (
	"math/big"
	"sync"

	"github.com/videogen/terraform-provider-videogen/internal/client"
	"github.com/videogen/terraform-provider-videogen/internal/journal"
)

// Lifecycle is what one provider process knows of the clips of its plan or
// apply: the budget of new clips, the tasks handed over by Deletes, the task
// journal and the tasks the state's resources were read holding.
type Lifecycle struct {
	client   *client.Client
	models   *client.ModelCatalog
	journal  *journal.Journal
	api      client.API
	budget   *budget
	spending spending
	handover *handover
	held     heldTasks
	facts    clipFacts
	log      Logger
	// deleteOnDestroy: destroying a finished clip deletes it on an API with a delete.
	deleteOnDestroy bool
	// removalWarning says once per run what destroying clips does.
	removalWarning sync.Once
	// confirmations gathers the clip parameters the service does not confirm,
	// for one warning per run.
	confirmations confirmations
	// journalError says once per run that the journal_path file cannot be written.
	journalError sync.Once
}

// Config is what a Lifecycle works with.
type Config struct {
	Client  *client.Client
	Models  *client.ModelCatalog
	Journal *journal.Journal
	API     client.API
	// MaxNewClips bounds the new clips of one plan; negative for no limit.
	MaxNewClips int64
	// MaxCost bounds what the new clips of one plan cost, as the model list
	// prices them; nil for no cap.
	MaxCost *big.Rat
	Log     Logger
	// DeleteOnDestroy is the provider's delete_on_destroy.
	DeleteOnDestroy bool
}

// New returns the lifecycle of one provider process.
func New(cfg Config) *Lifecycle {
	return &Lifecycle{client: cfg.Client, models: cfg.Models, journal: cfg.Journal, api: cfg.API,
		budget: newBudget(cfg.MaxNewClips), handover: newHandover(), log: cfg.Log,
		deleteOnDestroy: cfg.DeleteOnDestroy, spending: spending{max: cfg.MaxCost}}
}

// Seen registers, at plan, a tainted clip whose unfinished task its
// replacement may resume.
func (l *Lifecycle) Seen(c Clip) { l.budget.see(c) }

// Kept forgets a clip registered by Seen: the plan keeps it, untainted.
func (l *Lifecycle) Kept(taskID string) { l.budget.unsee(taskID) }
