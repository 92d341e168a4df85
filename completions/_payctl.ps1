
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'payctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'payctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'payctl' {
            [CompletionResult]::new('--data-dir', '--data-dir', [CompletionResultType]::ParameterName, 'The store (default: the platform data dir, ~/.local/share/payctl on Linux)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'A PostgreSQL database as the store instead of --data-dir: postgresql://user:password@host:port/dbname[?sslmode=…&sslrootcert=PATH]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, json, jsonl (one record per line) or id [default: table on a terminal, else json]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, json, jsonl (one record per line) or id [default: table on a terminal, else json]')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The context of the config file to use (see `payctl config`) [default: its current-context]')
            [CompletionResult]::new('--actor', '--actor', [CompletionResultType]::ParameterName, 'Name written to created_by / modified_by, 1-64 characters [default: the OS user name]')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for another payctl that holds the store')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto, always, never (NO_COLOR is respected)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Remote mode: send each command to the service at URL; PAYCTL_TOKEN is its bearer token')
            [CompletionResult]::new('--http-timeout', '--http-timeout', [CompletionResultType]::ParameterName, 'Remote mode: seconds to wait for each phase of an exchange (then 30007 when nothing was sent, 30020 once the request went out)')
            [CompletionResult]::new('--ca-cert', '--ca-cert', [CompletionResultType]::ParameterName, 'Remote mode over https://: trust only the CA certificates of this PEM file')
            [CompletionResult]::new('--no-input', '--no-input', [CompletionResultType]::ParameterName, 'Never prompt (prompts happen only when stdin is a terminal)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Tables without their header row and page footer (rows only, for `awk` and `cut`)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Confirm destructive commands without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Confirm destructive commands without asking')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('profile', 'profile', [CompletionResultType]::ParameterValue, 'Customer profiles (/customer-profiles)')
            [CompletionResult]::new('address', 'address', [CompletionResultType]::ParameterValue, 'Addresses of a customer profile (/customer-profiles/{id}/addresses)')
            [CompletionResult]::new('instrument', 'instrument', [CompletionResultType]::ParameterValue, 'Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)')
            [CompletionResult]::new('program', 'program', [CompletionResultType]::ParameterValue, 'Programs, their applications, and attaching customers (/programs)')
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Transaction templates and their steps (/applications/{id}/transaction-templates)')
            [CompletionResult]::new('txn', 'txn', [CompletionResultType]::ParameterValue, 'Transactions, their parameters and steps (/transactions)')
            [CompletionResult]::new('dict', 'dict', [CompletionResultType]::ParameterValue, 'Dictionaries: the values other requests refer to by number (/dictionaries)')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'The event log: what changed, who changed it, when (GET /events; ours)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'One record''s events, oldest first: who changed it, when, and what it became (ours)')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, '`payctl listen`')
            [CompletionResult]::new('worker', 'worker', [CompletionResultType]::ParameterValue, 'Do the background work: attachments, transaction steps')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a store, with the built-in catalog or your own')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'The store: integrity, migration, snapshots and reset')
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Outcomes on demand for test suites: rules for the background work (ours)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Contexts: named stores and services in a config file, picked with --context')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a static completion script; --help says how to install the dynamic one, which completes ids and names too')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HTTP API over the store (ours)')
            [CompletionResult]::new('key', 'key', [CompletionResultType]::ParameterValue, 'API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)')
            [CompletionResult]::new('openapi', 'openapi', [CompletionResultType]::ParameterValue, 'Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)')
            [CompletionResult]::new('generate-docs', 'generate-docs', [CompletionResultType]::ParameterValue, 'Write completions/ and man/ into DIR (for maintainers)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;profile' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a customer profile (POST /customer-profiles)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List customer profiles, oldest first (GET /customer-profiles)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one customer profile (GET /customer-profiles/{id})')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;profile;create' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--customer-type-id', '--customer-type-id', [CompletionResultType]::ParameterName, 'customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)')
            [CompletionResult]::new('--customer-key', '--customer-key', [CompletionResultType]::ParameterName, 'customer_key: 5-50 of digits, letters, ! @ . - _ # (unique)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'A customer_profile_tags entry (repeatable, at most 50)')
            [CompletionResult]::new('--first-name', '--first-name', [CompletionResultType]::ParameterName, 'first_name: 1-50 characters (required by a create)')
            [CompletionResult]::new('--middle-name', '--middle-name', [CompletionResultType]::ParameterName, 'middle_name: 0-50 characters (optional)')
            [CompletionResult]::new('--last-name', '--last-name', [CompletionResultType]::ParameterName, 'last_name: 1-50 characters (required by a create)')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'email: an e-mail address, at most 256 characters (required by a create)')
            [CompletionResult]::new('--date-of-birth', '--date-of-birth', [CompletionResultType]::ParameterName, 'date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator''s age limits (required by a create)')
            [CompletionResult]::new('--ssn', '--ssn', [CompletionResultType]::ParameterName, 'ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)')
            [CompletionResult]::new('--mobile-phone', '--mobile-phone', [CompletionResultType]::ParameterName, 'mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)')
            [CompletionResult]::new('--home-phone', '--home-phone', [CompletionResultType]::ParameterName, 'home_phone: +, a digit 1-9, then 1 to 15 digits (optional)')
            [CompletionResult]::new('--office-phone', '--office-phone', [CompletionResultType]::ParameterName, 'office_phone: +, a digit 1-9, then 1 to 15 digits (optional)')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;profile;list' {
            [CompletionResult]::new('--first-name', '--first-name', [CompletionResultType]::ParameterName, 'Only profiles with this first name (any case)')
            [CompletionResult]::new('--last-name', '--last-name', [CompletionResultType]::ParameterName, 'Only profiles with this last name (any case)')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'Only profiles with this e-mail address (any case)')
            [CompletionResult]::new('--customer-key', '--customer-key', [CompletionResultType]::ParameterName, 'Only the profile with this customer_key')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'Only profiles with this tag (repeatable; all must match)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;profile;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;profile;update' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--customer-type-id', '--customer-type-id', [CompletionResultType]::ParameterName, 'customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)')
            [CompletionResult]::new('--customer-key', '--customer-key', [CompletionResultType]::ParameterName, 'customer_key: 5-50 of digits, letters, ! @ . - _ # (unique)')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'A customer_profile_tags entry (repeatable, at most 50)')
            [CompletionResult]::new('--first-name', '--first-name', [CompletionResultType]::ParameterName, 'first_name: 1-50 characters (required by a create)')
            [CompletionResult]::new('--middle-name', '--middle-name', [CompletionResultType]::ParameterName, 'middle_name: 0-50 characters (optional)')
            [CompletionResult]::new('--last-name', '--last-name', [CompletionResultType]::ParameterName, 'last_name: 1-50 characters (required by a create)')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'email: an e-mail address, at most 256 characters (required by a create)')
            [CompletionResult]::new('--date-of-birth', '--date-of-birth', [CompletionResultType]::ParameterName, 'date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator''s age limits (required by a create)')
            [CompletionResult]::new('--ssn', '--ssn', [CompletionResultType]::ParameterName, 'ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)')
            [CompletionResult]::new('--mobile-phone', '--mobile-phone', [CompletionResultType]::ParameterName, 'mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)')
            [CompletionResult]::new('--home-phone', '--home-phone', [CompletionResultType]::ParameterName, 'home_phone: +, a digit 1-9, then 1 to 15 digits (optional)')
            [CompletionResult]::new('--office-phone', '--office-phone', [CompletionResultType]::ParameterName, 'office_phone: +, a digit 1-9, then 1 to 15 digits (optional)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;profile;import' {
            [CompletionResult]::new('--skip-existing', '--skip-existing', [CompletionResultType]::ParameterName, 'Skip lines whose customer_key a stored profile already has (instead of refusing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;profile;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a customer profile (POST /customer-profiles)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List customer profiles, oldest first (GET /customer-profiles)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one customer profile (GET /customer-profiles/{id})')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;profile;help;create' {
            break
        }
        'payctl;profile;help;list' {
            break
        }
        'payctl;profile;help;get' {
            break
        }
        'payctl;profile;help;update' {
            break
        }
        'payctl;profile;help;import' {
            break
        }
        'payctl;profile;help;help' {
            break
        }
        'payctl;address' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the addresses of a customer profile, oldest first (GET …/addresses)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one address (GET …/addresses/{address_id})')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change an address; only the fields given change (PUT …/addresses/{address_id})')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an address (DELETE …/addresses/{address_id})')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;address;create' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--address-type-id', '--address-type-id', [CompletionResultType]::ParameterName, 'address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)')
            [CompletionResult]::new('--default', '--default', [CompletionResultType]::ParameterName, 'is_default: make this the profile''s one default address')
            [CompletionResult]::new('--country-id', '--country-id', [CompletionResultType]::ParameterName, 'country_id: only 1 (US, the United States) is supported')
            [CompletionResult]::new('--state-id', '--state-id', [CompletionResultType]::ParameterName, 'state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`')
            [CompletionResult]::new('--first-name', '--first-name', [CompletionResultType]::ParameterName, '1-50 characters')
            [CompletionResult]::new('--last-name', '--last-name', [CompletionResultType]::ParameterName, '1-50 characters')
            [CompletionResult]::new('--address-line1', '--address-line1', [CompletionResultType]::ParameterName, '1-256 characters')
            [CompletionResult]::new('--address-line2', '--address-line2', [CompletionResultType]::ParameterName, '1-256 characters (an empty string is accepted)')
            [CompletionResult]::new('--city', '--city', [CompletionResultType]::ParameterName, '1-50 characters')
            [CompletionResult]::new('--zip', '--zip', [CompletionResultType]::ParameterName, 'xxxxx or xxxxx-xxxx')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;address;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;address;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;address;update' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--address-type-id', '--address-type-id', [CompletionResultType]::ParameterName, 'address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)')
            [CompletionResult]::new('--default', '--default', [CompletionResultType]::ParameterName, 'is_default: make this the profile''s one default address')
            [CompletionResult]::new('--country-id', '--country-id', [CompletionResultType]::ParameterName, 'country_id: only 1 (US, the United States) is supported')
            [CompletionResult]::new('--state-id', '--state-id', [CompletionResultType]::ParameterName, 'state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`')
            [CompletionResult]::new('--first-name', '--first-name', [CompletionResultType]::ParameterName, '1-50 characters')
            [CompletionResult]::new('--last-name', '--last-name', [CompletionResultType]::ParameterName, '1-50 characters')
            [CompletionResult]::new('--address-line1', '--address-line1', [CompletionResultType]::ParameterName, '1-256 characters')
            [CompletionResult]::new('--address-line2', '--address-line2', [CompletionResultType]::ParameterName, '1-256 characters (an empty string is accepted)')
            [CompletionResult]::new('--city', '--city', [CompletionResultType]::ParameterName, '1-50 characters')
            [CompletionResult]::new('--zip', '--zip', [CompletionResultType]::ParameterName, 'xxxxx or xxxxx-xxxx')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;address;delete' {
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;address;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the addresses of a customer profile, oldest first (GET …/addresses)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one address (GET …/addresses/{address_id})')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change an address; only the fields given change (PUT …/addresses/{address_id})')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an address (DELETE …/addresses/{address_id})')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;address;help;create' {
            break
        }
        'payctl;address;help;list' {
            break
        }
        'payctl;address;help;get' {
            break
        }
        'payctl;address;help;update' {
            break
        }
        'payctl;address;help;delete' {
            break
        }
        'payctl;address;help;help' {
            break
        }
        'payctl;instrument' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List a profile''s payment instruments, oldest first')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one payment instrument')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change the label, the change reason or is_default (nothing else can change: 10003)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;instrument;create' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--type-id', '--type-id', [CompletionResultType]::ParameterName, 'payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal')
            [CompletionResult]::new('--payment-method-id', '--payment-method-id', [CompletionResultType]::ParameterName, 'payment_method_id: an id or a name: 1 ACH (the only one supported)')
            [CompletionResult]::new('--default', '--default', [CompletionResultType]::ParameterName, 'is_default: one default per profile and instrument type')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'payment_instrument_label (1-256 characters)')
            [CompletionResult]::new('--change-reason', '--change-reason', [CompletionResultType]::ParameterName, 'payment_instrument_change_reason (1-256 characters)')
            [CompletionResult]::new('--program', '--program', [CompletionResultType]::ParameterName, 'program_id the customer is Attached to (prm_…)')
            [CompletionResult]::new('--account-number', '--account-number', [CompletionResultType]::ParameterName, '4-17 digits')
            [CompletionResult]::new('--routing-number', '--routing-number', [CompletionResultType]::ParameterName, 'exactly 9 digits')
            [CompletionResult]::new('--ach-type-id', '--ach-type-id', [CompletionResultType]::ParameterName, 'payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'A payment_instrument_tags entry (repeatable, at most 50; keys unique)')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;instrument;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;instrument;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;instrument;update' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--type-id', '--type-id', [CompletionResultType]::ParameterName, 'payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal')
            [CompletionResult]::new('--payment-method-id', '--payment-method-id', [CompletionResultType]::ParameterName, 'payment_method_id: an id or a name: 1 ACH (the only one supported)')
            [CompletionResult]::new('--default', '--default', [CompletionResultType]::ParameterName, 'is_default: one default per profile and instrument type')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'payment_instrument_label (1-256 characters)')
            [CompletionResult]::new('--change-reason', '--change-reason', [CompletionResultType]::ParameterName, 'payment_instrument_change_reason (1-256 characters)')
            [CompletionResult]::new('--program', '--program', [CompletionResultType]::ParameterName, 'program_id the customer is Attached to (prm_…)')
            [CompletionResult]::new('--account-number', '--account-number', [CompletionResultType]::ParameterName, '4-17 digits')
            [CompletionResult]::new('--routing-number', '--routing-number', [CompletionResultType]::ParameterName, 'exactly 9 digits')
            [CompletionResult]::new('--ach-type-id', '--ach-type-id', [CompletionResultType]::ParameterName, 'payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'A payment_instrument_tags entry (repeatable, at most 50; keys unique)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;instrument;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List a profile''s payment instruments, oldest first')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one payment instrument')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change the label, the change reason or is_default (nothing else can change: 10003)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;instrument;help;create' {
            break
        }
        'payctl;instrument;help;list' {
            break
        }
        'payctl;instrument;help;get' {
            break
        }
        'payctl;instrument;help;update' {
            break
        }
        'payctl;instrument;help;help' {
            break
        }
        'payctl;program' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the Facilitator''s Programs (GET /programs)')
            [CompletionResult]::new('applications', 'applications', [CompletionResultType]::ParameterValue, 'List the Applications of a Program (GET /programs/{id}/applications)')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)')
            [CompletionResult]::new('profile', 'profile', [CompletionResultType]::ParameterValue, 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;program;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;program;applications' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;program;attach' {
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'customer_profile_program_status_reason: why the profile is attached (0-256 characters)')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait with --wait; then the answer is printed as without --wait, 30005 (Timed out) on stderr says what is still pending, and the exit code is 4')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the worker has processed the request (poll every 200 ms)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;program;profiles' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;program;profile' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;program;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the Facilitator''s Programs (GET /programs)')
            [CompletionResult]::new('applications', 'applications', [CompletionResultType]::ParameterValue, 'List the Applications of a Program (GET /programs/{id}/applications)')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)')
            [CompletionResult]::new('profile', 'profile', [CompletionResultType]::ParameterValue, 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;program;help;list' {
            break
        }
        'payctl;program;help;applications' {
            break
        }
        'payctl;program;help;attach' {
            break
        }
        'payctl;program;help;profiles' {
            break
        }
        'payctl;program;help;profile' {
            break
        }
        'payctl;program;help;help' {
            break
        }
        'payctl;template' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)')
            [CompletionResult]::new('steps', 'steps', [CompletionResultType]::ParameterValue, 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;template;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;template;steps' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;template;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)')
            [CompletionResult]::new('steps', 'steps', [CompletionResultType]::ParameterValue, 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;template;help;list' {
            break
        }
        'payctl;template;help;steps' {
            break
        }
        'payctl;template;help;help' {
            break
        }
        'payctl;txn' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a transaction (POST /transactions)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one transaction (GET /transactions/{id})')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List transactions, oldest first (ours)')
            [CompletionResult]::new('parameters', 'parameters', [CompletionResultType]::ParameterValue, 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)')
            [CompletionResult]::new('steps', 'steps', [CompletionResultType]::ParameterValue, 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;txn;create' {
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields')
            [CompletionResult]::new('--program', '--program', [CompletionResultType]::ParameterName, 'program_id: a prm_ id or a program name')
            [CompletionResult]::new('--application', '--application', [CompletionResultType]::ParameterName, 'application_id: an app_ id or an application name of the program')
            [CompletionResult]::new('--template', '--template', [CompletionResultType]::ParameterName, 'transaction_template_id: a trt_ id or a template name of the application')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'transaction_status_reason')
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'A transaction_tags entry (repeatable, at most 50; replaces the tags of --body)')
            [CompletionResult]::new('--param', '--param', [CompletionResultType]::ParameterName, 'A parameter value: NAME=CSP:AMOUNT[:PIN] (@source_customers, @targets; PIN the account_id) or NAME=AMOUNT (@facilitator); repeatable')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'A @target_checks value: ''AMOUNT;key=value;…'' (see below); repeatable')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait with --wait; then the answer is printed as without --wait, 30005 (Timed out) on stderr says what is still pending, and the exit code is 4')
            [CompletionResult]::new('--idempotency-key', '--idempotency-key', [CompletionResultType]::ParameterName, 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the worker has processed the request (poll every 200 ms)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;txn;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;txn;list' {
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only transactions with this transaction_status_id, or its name (Failed)')
            [CompletionResult]::new('--template', '--template', [CompletionResultType]::ParameterName, 'Only transactions of this template (id, or name in any application)')
            [CompletionResult]::new('--program', '--program', [CompletionResultType]::ParameterName, 'Only transactions of this program (id or name)')
            [CompletionResult]::new('--customer', '--customer', [CompletionResultType]::ParameterName, 'Only transactions whose parameters name this customer profile')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;txn;parameters' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;txn;steps' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;txn;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a transaction (POST /transactions)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one transaction (GET /transactions/{id})')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List transactions, oldest first (ours)')
            [CompletionResult]::new('parameters', 'parameters', [CompletionResultType]::ParameterValue, 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)')
            [CompletionResult]::new('steps', 'steps', [CompletionResultType]::ParameterValue, 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;txn;help;create' {
            break
        }
        'payctl;txn;help;get' {
            break
        }
        'payctl;txn;help;list' {
            break
        }
        'payctl;txn;help;parameters' {
            break
        }
        'payctl;txn;help;steps' {
            break
        }
        'payctl;txn;help;help' {
            break
        }
        'payctl;dict' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List a dictionary''s values, or without NAME the dictionary names (GET /dictionaries/NAME)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;dict;list' {
            [CompletionResult]::new('--country', '--country', [CompletionResultType]::ParameterName, 'The country of `states` (GET /dictionaries/countries/{country_id}/states), 1 (the United States) when not given; a country that is not in `countries` answers 20001. Only `states` takes it: with another dictionary it is a usage error')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;dict;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List a dictionary''s values, or without NAME the dictionary names (GET /dictionaries/NAME)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;dict;help;list' {
            break
        }
        'payctl;dict;help;help' {
            break
        }
        'payctl;events' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List events, oldest first (GET /events)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one event (GET /events/{event_id})')
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Follow new events, one JSON line each, until interrupted (polls GET /events)')
            [CompletionResult]::new('resend', 'resend', [CompletionResultType]::ParameterValue, 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;events;list' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Only the events of this record (an attachment''s events carry its customer''s id)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only events created at or after this UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.ffffff][Z])')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;events;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;events;tail' {
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Only the events of this record (an attachment''s events carry its customer''s id)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Start at this sequence (the events from it on, then the new ones); default: only new ones')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Seconds between two looks at the log (0.1-60)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;events;resend' {
            [CompletionResult]::new('--webhook', '--webhook', [CompletionResultType]::ParameterName, 'The webhook to send it to (whk_…)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;events;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List events, oldest first (GET /events)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one event (GET /events/{event_id})')
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Follow new events, one JSON line each, until interrupted (polls GET /events)')
            [CompletionResult]::new('resend', 'resend', [CompletionResultType]::ParameterValue, 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;events;help;list' {
            break
        }
        'payctl;events;help;get' {
            break
        }
        'payctl;events;help;tail' {
            break
        }
        'payctl;events;help;resend' {
            break
        }
        'payctl;events;help;help' {
            break
        }
        'payctl;history' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;webhook' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a webhook and print its signing secret, once (POST /webhooks)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List webhooks, oldest first, secrets masked (GET /webhooks)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'List a webhook''s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)')
            [CompletionResult]::new('deliver', 'deliver', [CompletionResultType]::ParameterValue, 'Deliver what is due to every webhook, without a server, then exit (or --watch)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;webhook;create' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Where the events are POSTed: an http:// or https:// URL')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'Only events of these types or globs (`transaction.*`), comma-separated or repeated [default: *]')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'What the webhook is for (0-500 characters)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;webhook;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;webhook;get' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;webhook;delete' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;webhook;deliveries' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;webhook;deliver' {
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'With --watch: seconds between two looks at the log (0.1-60)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep delivering new events and retries until Ctrl-C or SIGTERM')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;webhook;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a webhook and print its signing secret, once (POST /webhooks)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List webhooks, oldest first, secrets masked (GET /webhooks)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'List a webhook''s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)')
            [CompletionResult]::new('deliver', 'deliver', [CompletionResultType]::ParameterValue, 'Deliver what is due to every webhook, without a server, then exit (or --watch)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;webhook;help;create' {
            break
        }
        'payctl;webhook;help;list' {
            break
        }
        'payctl;webhook;help;get' {
            break
        }
        'payctl;webhook;help;delete' {
            break
        }
        'payctl;webhook;help;deliveries' {
            break
        }
        'payctl;webhook;help;deliver' {
            break
        }
        'payctl;webhook;help;help' {
            break
        }
        'payctl;listen' {
            [CompletionResult]::new('--forward-to', '--forward-to', [CompletionResultType]::ParameterName, 'POST each event here, signed: an http:// or https:// URL')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'Only events of these types or globs, comma-separated or repeated [default: *]')
            [CompletionResult]::new('--secret', '--secret', [CompletionResultType]::ParameterName, 'The signing secret [default: a new whsec_… each run, printed on stderr]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Seconds between two looks at the log (0.1-60)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;worker' {
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Seconds between polls with --watch (fractions allowed, 0.01-86400)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep polling the queue until interrupted (Ctrl-C or SIGTERM)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;init' {
            [CompletionResult]::new('--catalog', '--catalog', [CompletionResultType]::ParameterName, 'A catalog of Programs, Applications and Templates as JSON (the shape of the built-in one; at most 16 MiB)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store''s invariants hold')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Copy this store into an empty one: a directory, or a PostgreSQL database')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Snapshots of the store''s records: save, list, restore, delete (for test suites)')
            [CompletionResult]::new('reset', 'reset', [CompletionResultType]::ParameterValue, 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;store;check' {
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Rebuild derived data and remove stray temp files')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;migrate' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'A directory, or postgresql://user:password@host:port/dbname')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;snapshot' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save the store''s records as a snapshot NAME, replacing one of that name')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the snapshots, oldest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Replace every record of the store with the snapshot''s, at once')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a snapshot')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;store;snapshot;save' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;snapshot;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;snapshot;restore' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;snapshot;delete' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;snapshot;help' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save the store''s records as a snapshot NAME, replacing one of that name')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the snapshots, oldest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Replace every record of the store with the snapshot''s, at once')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a snapshot')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;store;snapshot;help;save' {
            break
        }
        'payctl;store;snapshot;help;list' {
            break
        }
        'payctl;store;snapshot;help;restore' {
            break
        }
        'payctl;store;snapshot;help;delete' {
            break
        }
        'payctl;store;snapshot;help;help' {
            break
        }
        'payctl;store;reset' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;store;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store''s invariants hold')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Copy this store into an empty one: a directory, or a PostgreSQL database')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Snapshots of the store''s records: save, list, restore, delete (for test suites)')
            [CompletionResult]::new('reset', 'reset', [CompletionResultType]::ParameterValue, 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;store;help;check' {
            break
        }
        'payctl;store;help;migrate' {
            break
        }
        'payctl;store;help;snapshot' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save the store''s records as a snapshot NAME, replacing one of that name')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the snapshots, oldest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Replace every record of the store with the snapshot''s, at once')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a snapshot')
            break
        }
        'payctl;store;help;snapshot;save' {
            break
        }
        'payctl;store;help;snapshot;list' {
            break
        }
        'payctl;store;help;snapshot;restore' {
            break
        }
        'payctl;store;help;snapshot;delete' {
            break
        }
        'payctl;store;help;reset' {
            break
        }
        'payctl;store;help;help' {
            break
        }
        'payctl;sim' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('rule', 'rule', [CompletionResultType]::ParameterValue, 'Outcome rules of the background work: add, list, delete')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;sim;rule' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an outcome rule (after the others: the first that matches an item decides)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the outcome rules, in the order they apply')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an outcome rule')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;sim;rule;add' {
            [CompletionResult]::new('--on', '--on', [CompletionResultType]::ParameterName, 'The work the rule applies to')
            [CompletionResult]::new('--when', '--when', [CompletionResultType]::ParameterName, 'FIELD=VALUE (equal) or FIELD~REGEX (the regular expression finds a match) [default: every item]. Attach: customer_key, customer_type_id, a customer_profile_individual field (first_name, email, …; not ssn) or tag:KEY. Step: a field of the step''s parameter values (amount, equal as a decimal; customer_profile_id; organization_name, …) or transfer_type_id')
            [CompletionResult]::new('--outcome', '--outcome', [CompletionResultType]::ParameterName, 'What the worker makes of a matching item: rejected (attach) or failed (step) [default: the usual outcome]')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'The status reason of the outcome, 1-255 characters (an ACH return: "R01 Insufficient funds") [default: "Rejected/Failed by the payctl sim rule RUL."]')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'The item waits this many seconds (1-604800) before the worker takes it: an attachment from its request, a step from when it became the next to run')
            [CompletionResult]::new('--after-polls', '--after-polls', [CompletionResultType]::ParameterName, 'The item is taken only after it has been read N times (1-1000): GET of the profile-program record; GET of the transaction or its steps for the step next to run')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;sim;rule;list' {
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'Records per page (1-1000; default 50, with --all 1000 per request)')
            [CompletionResult]::new('--page-number', '--page-number', [CompletionResultType]::ParameterName, 'Page to show, from 1')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'Continue after this last_evaluated_key of the previous page')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;sim;rule;delete' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;sim;rule;help' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an outcome rule (after the others: the first that matches an item decides)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the outcome rules, in the order they apply')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an outcome rule')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;sim;rule;help;add' {
            break
        }
        'payctl;sim;rule;help;list' {
            break
        }
        'payctl;sim;rule;help;delete' {
            break
        }
        'payctl;sim;rule;help;help' {
            break
        }
        'payctl;sim;help' {
            [CompletionResult]::new('rule', 'rule', [CompletionResultType]::ParameterValue, 'Outcome rules of the background work: add, list, delete')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;sim;help;rule' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an outcome rule (after the others: the first that matches an item decides)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the outcome rules, in the order they apply')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an outcome rule')
            break
        }
        'payctl;sim;help;rule;add' {
            break
        }
        'payctl;sim;help;rule;list' {
            break
        }
        'payctl;sim;help;rule;delete' {
            break
        }
        'payctl;sim;help;help' {
            break
        }
        'payctl;config' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('view', 'view', [CompletionResultType]::ParameterValue, 'Show the contexts of the config file, the current one marked (a database-url''s password is masked; tokens are never in the file)')
            [CompletionResult]::new('set-context', 'set-context', [CompletionResultType]::ParameterValue, 'Create a context, or change the keys given of one (the other keys are kept)')
            [CompletionResult]::new('use-context', 'use-context', [CompletionResultType]::ParameterValue, 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)')
            [CompletionResult]::new('delete-context', 'delete-context', [CompletionResultType]::ParameterValue, 'Delete a context (when it was the current one, no context is current any more)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;config;view' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;config;set-context' {
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Remote mode: the service this context sends commands to (http:// or https://)')
            [CompletionResult]::new('--data-dir', '--data-dir', [CompletionResultType]::ParameterName, 'The store directory of this context (a relative path is made absolute now)')
            [CompletionResult]::new('--database-url', '--database-url', [CompletionResultType]::ParameterName, 'A PostgreSQL database as the store of this context (postgresql://…); a password in it is written to the file (mode 0600) and never shown')
            [CompletionResult]::new('--token-env', '--token-env', [CompletionResultType]::ParameterName, 'Remote mode: the NAME of the environment variable the token is read from (the token itself is never written to the file); PAYCTL_TOKEN, when set, still wins')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;config;use-context' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;config;delete-context' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;config;help' {
            [CompletionResult]::new('view', 'view', [CompletionResultType]::ParameterValue, 'Show the contexts of the config file, the current one marked (a database-url''s password is masked; tokens are never in the file)')
            [CompletionResult]::new('set-context', 'set-context', [CompletionResultType]::ParameterValue, 'Create a context, or change the keys given of one (the other keys are kept)')
            [CompletionResult]::new('use-context', 'use-context', [CompletionResultType]::ParameterValue, 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)')
            [CompletionResult]::new('delete-context', 'delete-context', [CompletionResultType]::ParameterValue, 'Delete a context (when it was the current one, no context is current any more)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;config;help;view' {
            break
        }
        'payctl;config;help;set-context' {
            break
        }
        'payctl;config;help;use-context' {
            break
        }
        'payctl;config;help;delete-context' {
            break
        }
        'payctl;config;help;help' {
            break
        }
        'payctl;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address and port to listen on (port 0: a free one). Beyond loopback, API keys in the store (`payctl key create`) or a token (--token-file, PAYCTL_SERVE_TOKEN or --token) are required')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'An admin credential named `token` (`Authorization: Bearer TOKEN`, compared in constant time), beside the store''s API keys; with it every request needs a credential. 16 or more printable ASCII characters, no space, at least 4 distinct ones (`openssl rand -hex 16`). Every local user can read it in the process list: prefer --token-file or PAYCTL_SERVE_TOKEN')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read the token (as --token) from FILE: its first line, the line break after it dropped. The file must not be readable by other users (chmod 600 or 640)')
            [CompletionResult]::new('--worker-interval', '--worker-interval', [CompletionResultType]::ParameterName, 'Seconds between passes of the background worker (0.01-86400)')
            [CompletionResult]::new('--max-body', '--max-body', [CompletionResultType]::ParameterName, 'Largest request body in bytes (larger: 413); the import''s JSON Lines (POST /_payctl/customer-profiles/import) are streamed instead, up to 4 GiB')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Seconds a client has to send its headers, and then its body (then the connection is closed, or 400); for the import''s streamed body, each part of it')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'The access log''s format: text (`TIME METHOD PATH STATUS 1.2ms`) or json (one object per line: ts, method, path, status, ms, key, request_id)')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Serve HTTPS with this certificate: a PEM file with the server''s certificate, then any intermediate ones (needs --tls-key)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The private key of --tls-cert: a PEM file (PKCS#8, PKCS#1 or SEC1) that other users cannot read (chmod 600)')
            [CompletionResult]::new('--rate-limit', '--rate-limit', [CompletionResultType]::ParameterName, 'At most N requests a second per credential (token or key; without one, per client address), in bursts of up to N; more: 429 with Retry-After (10012). Health and readiness are never limited')
            [CompletionResult]::new('--ui-session', '--ui-session', [CompletionResultType]::ParameterName, 'Seconds a console sign-in lasts (its session cookie''s Max-Age), on a server with API keys or a token: 1-604800 (a week), default 8 hours')
            [CompletionResult]::new('--no-worker', '--no-worker', [CompletionResultType]::ParameterName, 'Run no background worker: leave it to `payctl worker` or to POST /_payctl/worker')
            [CompletionResult]::new('--no-webhooks', '--no-webhooks', [CompletionResultType]::ParameterName, 'Deliver no webhooks: leave it to `payctl webhook deliver`')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No access log on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No access log on stderr')
            [CompletionResult]::new('--no-ui', '--no-ui', [CompletionResultType]::ParameterName, 'Serve no console: /ui/ answers 404 like any path without an endpoint')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;key' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an API key and print its secret, once')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a key: every server of the store refuses it from its next request')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;key;create' {
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'What the key may do: reader, writer or admin (each also what the one before may)')
            [CompletionResult]::new('--expires-in', '--expires-in', [CompletionResultType]::ParameterName, 'Days until the key is refused (1-3650) [default: never]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'payctl;key;list' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;key;revoke' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;key;help' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an API key and print its secret, once')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a key: every server of the store refuses it from its next request')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;key;help;create' {
            break
        }
        'payctl;key;help;list' {
            break
        }
        'payctl;key;help;revoke' {
            break
        }
        'payctl;key;help;help' {
            break
        }
        'payctl;openapi' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;demo' {
            [CompletionResult]::new('--keep', '--keep', [CompletionResultType]::ParameterName, 'Keep the scratch store instead of removing it at the end')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;generate-docs' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'payctl;help' {
            [CompletionResult]::new('profile', 'profile', [CompletionResultType]::ParameterValue, 'Customer profiles (/customer-profiles)')
            [CompletionResult]::new('address', 'address', [CompletionResultType]::ParameterValue, 'Addresses of a customer profile (/customer-profiles/{id}/addresses)')
            [CompletionResult]::new('instrument', 'instrument', [CompletionResultType]::ParameterValue, 'Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)')
            [CompletionResult]::new('program', 'program', [CompletionResultType]::ParameterValue, 'Programs, their applications, and attaching customers (/programs)')
            [CompletionResult]::new('template', 'template', [CompletionResultType]::ParameterValue, 'Transaction templates and their steps (/applications/{id}/transaction-templates)')
            [CompletionResult]::new('txn', 'txn', [CompletionResultType]::ParameterValue, 'Transactions, their parameters and steps (/transactions)')
            [CompletionResult]::new('dict', 'dict', [CompletionResultType]::ParameterValue, 'Dictionaries: the values other requests refer to by number (/dictionaries)')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'The event log: what changed, who changed it, when (GET /events; ours)')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'One record''s events, oldest first: who changed it, when, and what it became (ours)')
            [CompletionResult]::new('webhook', 'webhook', [CompletionResultType]::ParameterValue, 'Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)')
            [CompletionResult]::new('listen', 'listen', [CompletionResultType]::ParameterValue, 'Follow the events and POST each, signed, to a local URL (development; ours)')
            [CompletionResult]::new('worker', 'worker', [CompletionResultType]::ParameterValue, 'Do the background work: attachments, transaction steps')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create a store, with the built-in catalog or your own')
            [CompletionResult]::new('store', 'store', [CompletionResultType]::ParameterValue, 'The store: integrity, migration, snapshots and reset')
            [CompletionResult]::new('sim', 'sim', [CompletionResultType]::ParameterValue, 'Outcomes on demand for test suites: rules for the background work (ours)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Contexts: named stores and services in a config file, picked with --context')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a static completion script; --help says how to install the dynamic one, which completes ids and names too')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the HTTP API over the store (ours)')
            [CompletionResult]::new('key', 'key', [CompletionResultType]::ParameterValue, 'API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)')
            [CompletionResult]::new('openapi', 'openapi', [CompletionResultType]::ParameterValue, 'Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)')
            [CompletionResult]::new('generate-docs', 'generate-docs', [CompletionResultType]::ParameterValue, 'Write completions/ and man/ into DIR (for maintainers)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'payctl;help;profile' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a customer profile (POST /customer-profiles)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List customer profiles, oldest first (GET /customer-profiles)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one customer profile (GET /customer-profiles/{id})')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)')
            break
        }
        'payctl;help;profile;create' {
            break
        }
        'payctl;help;profile;list' {
            break
        }
        'payctl;help;profile;get' {
            break
        }
        'payctl;help;profile;update' {
            break
        }
        'payctl;help;profile;import' {
            break
        }
        'payctl;help;address' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the addresses of a customer profile, oldest first (GET …/addresses)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one address (GET …/addresses/{address_id})')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change an address; only the fields given change (PUT …/addresses/{address_id})')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an address (DELETE …/addresses/{address_id})')
            break
        }
        'payctl;help;address;create' {
            break
        }
        'payctl;help;address;list' {
            break
        }
        'payctl;help;address;get' {
            break
        }
        'payctl;help;address;update' {
            break
        }
        'payctl;help;address;delete' {
            break
        }
        'payctl;help;instrument' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List a profile''s payment instruments, oldest first')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one payment instrument')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change the label, the change reason or is_default (nothing else can change: 10003)')
            break
        }
        'payctl;help;instrument;create' {
            break
        }
        'payctl;help;instrument;list' {
            break
        }
        'payctl;help;instrument;get' {
            break
        }
        'payctl;help;instrument;update' {
            break
        }
        'payctl;help;program' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the Facilitator''s Programs (GET /programs)')
            [CompletionResult]::new('applications', 'applications', [CompletionResultType]::ParameterValue, 'List the Applications of a Program (GET /programs/{id}/applications)')
            [CompletionResult]::new('attach', 'attach', [CompletionResultType]::ParameterValue, 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)')
            [CompletionResult]::new('profile', 'profile', [CompletionResultType]::ParameterValue, 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})')
            break
        }
        'payctl;help;program;list' {
            break
        }
        'payctl;help;program;applications' {
            break
        }
        'payctl;help;program;attach' {
            break
        }
        'payctl;help;program;profiles' {
            break
        }
        'payctl;help;program;profile' {
            break
        }
        'payctl;help;template' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)')
            [CompletionResult]::new('steps', 'steps', [CompletionResultType]::ParameterValue, 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)')
            break
        }
        'payctl;help;template;list' {
            break
        }
        'payctl;help;template;steps' {
            break
        }
        'payctl;help;txn' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a transaction (POST /transactions)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one transaction (GET /transactions/{id})')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List transactions, oldest first (ours)')
            [CompletionResult]::new('parameters', 'parameters', [CompletionResultType]::ParameterValue, 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)')
            [CompletionResult]::new('steps', 'steps', [CompletionResultType]::ParameterValue, 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)')
            break
        }
        'payctl;help;txn;create' {
            break
        }
        'payctl;help;txn;get' {
            break
        }
        'payctl;help;txn;list' {
            break
        }
        'payctl;help;txn;parameters' {
            break
        }
        'payctl;help;txn;steps' {
            break
        }
        'payctl;help;dict' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List a dictionary''s values, or without NAME the dictionary names (GET /dictionaries/NAME)')
            break
        }
        'payctl;help;dict;list' {
            break
        }
        'payctl;help;events' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List events, oldest first (GET /events)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one event (GET /events/{event_id})')
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Follow new events, one JSON line each, until interrupted (polls GET /events)')
            [CompletionResult]::new('resend', 'resend', [CompletionResultType]::ParameterValue, 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)')
            break
        }
        'payctl;help;events;list' {
            break
        }
        'payctl;help;events;get' {
            break
        }
        'payctl;help;events;tail' {
            break
        }
        'payctl;help;events;resend' {
            break
        }
        'payctl;help;history' {
            break
        }
        'payctl;help;webhook' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create a webhook and print its signing secret, once (POST /webhooks)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List webhooks, oldest first, secrets masked (GET /webhooks)')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})')
            [CompletionResult]::new('deliveries', 'deliveries', [CompletionResultType]::ParameterValue, 'List a webhook''s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)')
            [CompletionResult]::new('deliver', 'deliver', [CompletionResultType]::ParameterValue, 'Deliver what is due to every webhook, without a server, then exit (or --watch)')
            break
        }
        'payctl;help;webhook;create' {
            break
        }
        'payctl;help;webhook;list' {
            break
        }
        'payctl;help;webhook;get' {
            break
        }
        'payctl;help;webhook;delete' {
            break
        }
        'payctl;help;webhook;deliveries' {
            break
        }
        'payctl;help;webhook;deliver' {
            break
        }
        'payctl;help;listen' {
            break
        }
        'payctl;help;worker' {
            break
        }
        'payctl;help;init' {
            break
        }
        'payctl;help;store' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store''s invariants hold')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Copy this store into an empty one: a directory, or a PostgreSQL database')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Snapshots of the store''s records: save, list, restore, delete (for test suites)')
            [CompletionResult]::new('reset', 'reset', [CompletionResultType]::ParameterValue, 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules')
            break
        }
        'payctl;help;store;check' {
            break
        }
        'payctl;help;store;migrate' {
            break
        }
        'payctl;help;store;snapshot' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save the store''s records as a snapshot NAME, replacing one of that name')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the snapshots, oldest first')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Replace every record of the store with the snapshot''s, at once')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete a snapshot')
            break
        }
        'payctl;help;store;snapshot;save' {
            break
        }
        'payctl;help;store;snapshot;list' {
            break
        }
        'payctl;help;store;snapshot;restore' {
            break
        }
        'payctl;help;store;snapshot;delete' {
            break
        }
        'payctl;help;store;reset' {
            break
        }
        'payctl;help;sim' {
            [CompletionResult]::new('rule', 'rule', [CompletionResultType]::ParameterValue, 'Outcome rules of the background work: add, list, delete')
            break
        }
        'payctl;help;sim;rule' {
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add an outcome rule (after the others: the first that matches an item decides)')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the outcome rules, in the order they apply')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete an outcome rule')
            break
        }
        'payctl;help;sim;rule;add' {
            break
        }
        'payctl;help;sim;rule;list' {
            break
        }
        'payctl;help;sim;rule;delete' {
            break
        }
        'payctl;help;config' {
            [CompletionResult]::new('view', 'view', [CompletionResultType]::ParameterValue, 'Show the contexts of the config file, the current one marked (a database-url''s password is masked; tokens are never in the file)')
            [CompletionResult]::new('set-context', 'set-context', [CompletionResultType]::ParameterValue, 'Create a context, or change the keys given of one (the other keys are kept)')
            [CompletionResult]::new('use-context', 'use-context', [CompletionResultType]::ParameterValue, 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)')
            [CompletionResult]::new('delete-context', 'delete-context', [CompletionResultType]::ParameterValue, 'Delete a context (when it was the current one, no context is current any more)')
            break
        }
        'payctl;help;config;view' {
            break
        }
        'payctl;help;config;set-context' {
            break
        }
        'payctl;help;config;use-context' {
            break
        }
        'payctl;help;config;delete-context' {
            break
        }
        'payctl;help;completions' {
            break
        }
        'payctl;help;serve' {
            break
        }
        'payctl;help;key' {
            [CompletionResult]::new('create', 'create', [CompletionResultType]::ParameterValue, 'Create an API key and print its secret, once')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)')
            [CompletionResult]::new('revoke', 'revoke', [CompletionResultType]::ParameterValue, 'Revoke a key: every server of the store refuses it from its next request')
            break
        }
        'payctl;help;key;create' {
            break
        }
        'payctl;help;key;list' {
            break
        }
        'payctl;help;key;revoke' {
            break
        }
        'payctl;help;openapi' {
            break
        }
        'payctl;help;demo' {
            break
        }
        'payctl;help;generate-docs' {
            break
        }
        'payctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
