package providerconfig

import (
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/videogen/terraform-provider-videogen/internal/journal"
	"github.com/videogen/terraform-provider-videogen/internal/validators"
)

// OpenJournal opens the journal of journal_url (or VIDEOGEN_JOURNAL_URL), else
// of journal_path, for the state this run works on. Nothing is read yet: an
// unreachable database fails the first plan that creates a clip, not a refresh.
func OpenJournal(cfg Model, diags *diag.Diagnostics) *journal.Journal {
	state := journal.CurrentState()
	url := cfg.JournalURL.ValueString()
	fromEnv := cfg.JournalURL.IsNull() && os.Getenv(EnvJournalURL) != ""
	if fromEnv {
		url = os.Getenv(EnvJournalURL)
		if err := validators.CheckDatabaseURL(url); err != nil {
			diags.AddAttributeError(path.Root("journal_url"), "Invalid Journal URL",
				fmt.Sprintf("The %s environment variable is not a database URL the provider can use: %s.", EnvJournalURL, err))
			return nil
		}
	}
	switch {
	case url != "" && !cfg.JournalPath.IsNull():
		diags.AddAttributeError(path.Root("journal_path"), "Conflicting Task Journals",
			fmt.Sprintf("journal_path is set in the provider block and %s is set in the environment: the provider keeps one "+
				"task journal. Remove journal_path to share the journal in the database (the way fresh CI runners are "+
				"protected), or unset %s to keep it in the file.", EnvJournalURL, EnvJournalURL))
		return nil
	case url != "":
		return journal.NewPostgres(url, state, journal.DefaultMaxAge)
	case !cfg.JournalPath.IsNull():
		return journal.New(cfg.JournalPath.ValueString(), state, journal.DefaultMaxAge)
	}
	return journal.New(journal.DefaultPath(), state, journal.DefaultMaxAge)
}
