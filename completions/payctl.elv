
use builtin;
use str;

set edit:completion:arg-completer[payctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'payctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'payctl'= {
            cand --data-dir 'The store (default: the platform data dir, ~/.local/share/payctl on Linux)'
            cand --database-url 'A PostgreSQL database as the store instead of --data-dir: postgresql://user:password@host:port/dbname[?sslmode=…&sslrootcert=PATH]'
            cand -o 'Output format: table, json, jsonl (one record per line) or id [default: table on a terminal, else json]'
            cand --output 'Output format: table, json, jsonl (one record per line) or id [default: table on a terminal, else json]'
            cand --context 'The context of the config file to use (see `payctl config`) [default: its current-context]'
            cand --actor 'Name written to created_by / modified_by, 1-64 characters [default: the OS user name]'
            cand --lock-timeout 'Seconds to wait for another payctl that holds the store'
            cand --color 'Colour: auto, always, never (NO_COLOR is respected)'
            cand --base-url 'Remote mode: send each command to the service at URL; PAYCTL_TOKEN is its bearer token'
            cand --http-timeout 'Remote mode: seconds to wait for each phase of an exchange (then 30007 when nothing was sent, 30020 once the request went out)'
            cand --ca-cert 'Remote mode over https://: trust only the CA certificates of this PEM file'
            cand --no-input 'Never prompt (prompts happen only when stdin is a terminal)'
            cand --no-headers 'Tables without their header row and page footer (rows only, for `awk` and `cut`)'
            cand -y 'Confirm destructive commands without asking'
            cand --yes 'Confirm destructive commands without asking'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand profile 'Customer profiles (/customer-profiles)'
            cand address 'Addresses of a customer profile (/customer-profiles/{id}/addresses)'
            cand instrument 'Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)'
            cand program 'Programs, their applications, and attaching customers (/programs)'
            cand template 'Transaction templates and their steps (/applications/{id}/transaction-templates)'
            cand txn 'Transactions, their parameters and steps (/transactions)'
            cand dict 'Dictionaries: the values other requests refer to by number (/dictionaries)'
            cand events 'The event log: what changed, who changed it, when (GET /events; ours)'
            cand history 'One record''s events, oldest first: who changed it, when, and what it became (ours)'
            cand webhook 'Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)'
            cand listen '`payctl listen`'
            cand worker 'Do the background work: attachments, transaction steps'
            cand init 'Create a store, with the built-in catalog or your own'
            cand store 'The store: integrity, migration, snapshots and reset'
            cand sim 'Outcomes on demand for test suites: rules for the background work (ours)'
            cand config 'Contexts: named stores and services in a config file, picked with --context'
            cand completions 'Print a static completion script; --help says how to install the dynamic one, which completes ids and names too'
            cand serve 'Serve the HTTP API over the store (ours)'
            cand key 'API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)'
            cand openapi 'Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)'
            cand demo 'Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)'
            cand generate-docs 'Write completions/ and man/ into DIR (for maintainers)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;profile'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Create a customer profile (POST /customer-profiles)'
            cand list 'List customer profiles, oldest first (GET /customer-profiles)'
            cand get 'Show one customer profile (GET /customer-profiles/{id})'
            cand update 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})'
            cand import 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;profile;create'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --customer-type-id 'customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)'
            cand --customer-key 'customer_key: 5-50 of digits, letters, ! @ . - _ # (unique)'
            cand --tag 'A customer_profile_tags entry (repeatable, at most 50)'
            cand --first-name 'first_name: 1-50 characters (required by a create)'
            cand --middle-name 'middle_name: 0-50 characters (optional)'
            cand --last-name 'last_name: 1-50 characters (required by a create)'
            cand --email 'email: an e-mail address, at most 256 characters (required by a create)'
            cand --date-of-birth 'date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator''s age limits (required by a create)'
            cand --ssn 'ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)'
            cand --mobile-phone 'mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)'
            cand --home-phone 'home_phone: +, a digit 1-9, then 1 to 15 digits (optional)'
            cand --office-phone 'office_phone: +, a digit 1-9, then 1 to 15 digits (optional)'
            cand --idempotency-key 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / ='
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;profile;list'= {
            cand --first-name 'Only profiles with this first name (any case)'
            cand --last-name 'Only profiles with this last name (any case)'
            cand --email 'Only profiles with this e-mail address (any case)'
            cand --customer-key 'Only the profile with this customer_key'
            cand --tag 'Only profiles with this tag (repeatable; all must match)'
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;profile;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;profile;update'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --customer-type-id 'customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)'
            cand --customer-key 'customer_key: 5-50 of digits, letters, ! @ . - _ # (unique)'
            cand --tag 'A customer_profile_tags entry (repeatable, at most 50)'
            cand --first-name 'first_name: 1-50 characters (required by a create)'
            cand --middle-name 'middle_name: 0-50 characters (optional)'
            cand --last-name 'last_name: 1-50 characters (required by a create)'
            cand --email 'email: an e-mail address, at most 256 characters (required by a create)'
            cand --date-of-birth 'date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator''s age limits (required by a create)'
            cand --ssn 'ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)'
            cand --mobile-phone 'mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)'
            cand --home-phone 'home_phone: +, a digit 1-9, then 1 to 15 digits (optional)'
            cand --office-phone 'office_phone: +, a digit 1-9, then 1 to 15 digits (optional)'
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;profile;import'= {
            cand --skip-existing 'Skip lines whose customer_key a stored profile already has (instead of refusing)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;profile;help'= {
            cand create 'Create a customer profile (POST /customer-profiles)'
            cand list 'List customer profiles, oldest first (GET /customer-profiles)'
            cand get 'Show one customer profile (GET /customer-profiles/{id})'
            cand update 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})'
            cand import 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;profile;help;create'= {
        }
        &'payctl;profile;help;list'= {
        }
        &'payctl;profile;help;get'= {
        }
        &'payctl;profile;help;update'= {
        }
        &'payctl;profile;help;import'= {
        }
        &'payctl;profile;help;help'= {
        }
        &'payctl;address'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)'
            cand list 'List the addresses of a customer profile, oldest first (GET …/addresses)'
            cand get 'Show one address (GET …/addresses/{address_id})'
            cand update 'Change an address; only the fields given change (PUT …/addresses/{address_id})'
            cand delete 'Delete an address (DELETE …/addresses/{address_id})'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;address;create'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --address-type-id 'address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)'
            cand --default 'is_default: make this the profile''s one default address'
            cand --country-id 'country_id: only 1 (US, the United States) is supported'
            cand --state-id 'state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`'
            cand --first-name '1-50 characters'
            cand --last-name '1-50 characters'
            cand --address-line1 '1-256 characters'
            cand --address-line2 '1-256 characters (an empty string is accepted)'
            cand --city '1-50 characters'
            cand --zip 'xxxxx or xxxxx-xxxx'
            cand --idempotency-key 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / ='
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;address;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;address;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;address;update'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --address-type-id 'address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)'
            cand --default 'is_default: make this the profile''s one default address'
            cand --country-id 'country_id: only 1 (US, the United States) is supported'
            cand --state-id 'state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`'
            cand --first-name '1-50 characters'
            cand --last-name '1-50 characters'
            cand --address-line1 '1-256 characters'
            cand --address-line2 '1-256 characters (an empty string is accepted)'
            cand --city '1-50 characters'
            cand --zip 'xxxxx or xxxxx-xxxx'
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;address;delete'= {
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;address;help'= {
            cand create 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)'
            cand list 'List the addresses of a customer profile, oldest first (GET …/addresses)'
            cand get 'Show one address (GET …/addresses/{address_id})'
            cand update 'Change an address; only the fields given change (PUT …/addresses/{address_id})'
            cand delete 'Delete an address (DELETE …/addresses/{address_id})'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;address;help;create'= {
        }
        &'payctl;address;help;list'= {
        }
        &'payctl;address;help;get'= {
        }
        &'payctl;address;help;update'= {
        }
        &'payctl;address;help;delete'= {
        }
        &'payctl;address;help;help'= {
        }
        &'payctl;instrument'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)'
            cand list 'List a profile''s payment instruments, oldest first'
            cand get 'Show one payment instrument'
            cand update 'Change the label, the change reason or is_default (nothing else can change: 10003)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;instrument;create'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --type-id 'payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal'
            cand --payment-method-id 'payment_method_id: an id or a name: 1 ACH (the only one supported)'
            cand --default 'is_default: one default per profile and instrument type'
            cand --label 'payment_instrument_label (1-256 characters)'
            cand --change-reason 'payment_instrument_change_reason (1-256 characters)'
            cand --program 'program_id the customer is Attached to (prm_…)'
            cand --account-number '4-17 digits'
            cand --routing-number 'exactly 9 digits'
            cand --ach-type-id 'payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking'
            cand --tag 'A payment_instrument_tags entry (repeatable, at most 50; keys unique)'
            cand --idempotency-key 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / ='
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;instrument;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;instrument;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;instrument;update'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --type-id 'payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal'
            cand --payment-method-id 'payment_method_id: an id or a name: 1 ACH (the only one supported)'
            cand --default 'is_default: one default per profile and instrument type'
            cand --label 'payment_instrument_label (1-256 characters)'
            cand --change-reason 'payment_instrument_change_reason (1-256 characters)'
            cand --program 'program_id the customer is Attached to (prm_…)'
            cand --account-number '4-17 digits'
            cand --routing-number 'exactly 9 digits'
            cand --ach-type-id 'payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking'
            cand --tag 'A payment_instrument_tags entry (repeatable, at most 50; keys unique)'
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;instrument;help'= {
            cand create 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)'
            cand list 'List a profile''s payment instruments, oldest first'
            cand get 'Show one payment instrument'
            cand update 'Change the label, the change reason or is_default (nothing else can change: 10003)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;instrument;help;create'= {
        }
        &'payctl;instrument;help;list'= {
        }
        &'payctl;instrument;help;get'= {
        }
        &'payctl;instrument;help;update'= {
        }
        &'payctl;instrument;help;help'= {
        }
        &'payctl;program'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List the Facilitator''s Programs (GET /programs)'
            cand applications 'List the Applications of a Program (GET /programs/{id}/applications)'
            cand attach 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)'
            cand profiles 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)'
            cand profile 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;program;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;program;applications'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;program;attach'= {
            cand --reason 'customer_profile_program_status_reason: why the profile is attached (0-256 characters)'
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --timeout 'Seconds to wait with --wait; then the answer is printed as without --wait, 30005 (Timed out) on stderr says what is still pending, and the exit code is 4'
            cand --idempotency-key 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / ='
            cand --wait 'Wait until the worker has processed the request (poll every 200 ms)'
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;program;profiles'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;program;profile'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;program;help'= {
            cand list 'List the Facilitator''s Programs (GET /programs)'
            cand applications 'List the Applications of a Program (GET /programs/{id}/applications)'
            cand attach 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)'
            cand profiles 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)'
            cand profile 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;program;help;list'= {
        }
        &'payctl;program;help;applications'= {
        }
        &'payctl;program;help;attach'= {
        }
        &'payctl;program;help;profiles'= {
        }
        &'payctl;program;help;profile'= {
        }
        &'payctl;program;help;help'= {
        }
        &'payctl;template'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)'
            cand steps 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;template;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;template;steps'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;template;help'= {
            cand list 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)'
            cand steps 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;template;help;list'= {
        }
        &'payctl;template;help;steps'= {
        }
        &'payctl;template;help;help'= {
        }
        &'payctl;txn'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Create a transaction (POST /transactions)'
            cand get 'Show one transaction (GET /transactions/{id})'
            cand list 'List transactions, oldest first (ours)'
            cand parameters 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)'
            cand steps 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;txn;create'= {
            cand --body 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields'
            cand --program 'program_id: a prm_ id or a program name'
            cand --application 'application_id: an app_ id or an application name of the program'
            cand --template 'transaction_template_id: a trt_ id or a template name of the application'
            cand --reason 'transaction_status_reason'
            cand --tag 'A transaction_tags entry (repeatable, at most 50; replaces the tags of --body)'
            cand --param 'A parameter value: NAME=CSP:AMOUNT[:PIN] (@source_customers, @targets; PIN the account_id) or NAME=AMOUNT (@facilitator); repeatable'
            cand --check 'A @target_checks value: ''AMOUNT;key=value;…'' (see below); repeatable'
            cand --timeout 'Seconds to wait with --wait; then the answer is printed as without --wait, 30005 (Timed out) on stderr says what is still pending, and the exit code is 4'
            cand --idempotency-key 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request''s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / ='
            cand --wait 'Wait until the worker has processed the request (poll every 200 ms)'
            cand --dry-run 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one''s id reads "(new)"); write nothing'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;txn;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;txn;list'= {
            cand --status 'Only transactions with this transaction_status_id, or its name (Failed)'
            cand --template 'Only transactions of this template (id, or name in any application)'
            cand --program 'Only transactions of this program (id or name)'
            cand --customer 'Only transactions whose parameters name this customer profile'
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;txn;parameters'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;txn;steps'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;txn;help'= {
            cand create 'Create a transaction (POST /transactions)'
            cand get 'Show one transaction (GET /transactions/{id})'
            cand list 'List transactions, oldest first (ours)'
            cand parameters 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)'
            cand steps 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;txn;help;create'= {
        }
        &'payctl;txn;help;get'= {
        }
        &'payctl;txn;help;list'= {
        }
        &'payctl;txn;help;parameters'= {
        }
        &'payctl;txn;help;steps'= {
        }
        &'payctl;txn;help;help'= {
        }
        &'payctl;dict'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List a dictionary''s values, or without NAME the dictionary names (GET /dictionaries/NAME)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;dict;list'= {
            cand --country 'The country of `states` (GET /dictionaries/countries/{country_id}/states), 1 (the United States) when not given; a country that is not in `countries` answers 20001. Only `states` takes it: with another dictionary it is a usage error'
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;dict;help'= {
            cand list 'List a dictionary''s values, or without NAME the dictionary names (GET /dictionaries/NAME)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;dict;help;list'= {
        }
        &'payctl;dict;help;help'= {
        }
        &'payctl;events'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List events, oldest first (GET /events)'
            cand get 'Show one event (GET /events/{event_id})'
            cand tail 'Follow new events, one JSON line each, until interrupted (polls GET /events)'
            cand resend 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;events;list'= {
            cand --type 'Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several'
            cand --record 'Only the events of this record (an attachment''s events carry its customer''s id)'
            cand --since 'Only events created at or after this UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.ffffff][Z])'
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;events;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;events;tail'= {
            cand --type 'Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several'
            cand --record 'Only the events of this record (an attachment''s events carry its customer''s id)'
            cand --from 'Start at this sequence (the events from it on, then the new ones); default: only new ones'
            cand --interval 'Seconds between two looks at the log (0.1-60)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;events;resend'= {
            cand --webhook 'The webhook to send it to (whk_…)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;events;help'= {
            cand list 'List events, oldest first (GET /events)'
            cand get 'Show one event (GET /events/{event_id})'
            cand tail 'Follow new events, one JSON line each, until interrupted (polls GET /events)'
            cand resend 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;events;help;list'= {
        }
        &'payctl;events;help;get'= {
        }
        &'payctl;events;help;tail'= {
        }
        &'payctl;events;help;resend'= {
        }
        &'payctl;events;help;help'= {
        }
        &'payctl;history'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;webhook'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Create a webhook and print its signing secret, once (POST /webhooks)'
            cand list 'List webhooks, oldest first, secrets masked (GET /webhooks)'
            cand get 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})'
            cand delete 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})'
            cand deliveries 'List a webhook''s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)'
            cand deliver 'Deliver what is due to every webhook, without a server, then exit (or --watch)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;webhook;create'= {
            cand --url 'Where the events are POSTed: an http:// or https:// URL'
            cand --events 'Only events of these types or globs (`transaction.*`), comma-separated or repeated [default: *]'
            cand --description 'What the webhook is for (0-500 characters)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;webhook;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;webhook;get'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;webhook;delete'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;webhook;deliveries'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;webhook;deliver'= {
            cand --interval 'With --watch: seconds between two looks at the log (0.1-60)'
            cand --watch 'Keep delivering new events and retries until Ctrl-C or SIGTERM'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;webhook;help'= {
            cand create 'Create a webhook and print its signing secret, once (POST /webhooks)'
            cand list 'List webhooks, oldest first, secrets masked (GET /webhooks)'
            cand get 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})'
            cand delete 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})'
            cand deliveries 'List a webhook''s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)'
            cand deliver 'Deliver what is due to every webhook, without a server, then exit (or --watch)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;webhook;help;create'= {
        }
        &'payctl;webhook;help;list'= {
        }
        &'payctl;webhook;help;get'= {
        }
        &'payctl;webhook;help;delete'= {
        }
        &'payctl;webhook;help;deliveries'= {
        }
        &'payctl;webhook;help;deliver'= {
        }
        &'payctl;webhook;help;help'= {
        }
        &'payctl;listen'= {
            cand --forward-to 'POST each event here, signed: an http:// or https:// URL'
            cand --events 'Only events of these types or globs, comma-separated or repeated [default: *]'
            cand --secret 'The signing secret [default: a new whsec_… each run, printed on stderr]'
            cand --interval 'Seconds between two looks at the log (0.1-60)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;worker'= {
            cand --interval 'Seconds between polls with --watch (fractions allowed, 0.01-86400)'
            cand --watch 'Keep polling the queue until interrupted (Ctrl-C or SIGTERM)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;init'= {
            cand --catalog 'A catalog of Programs, Applications and Templates as JSON (the shape of the built-in one; at most 16 MiB)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand check 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store''s invariants hold'
            cand migrate 'Copy this store into an empty one: a directory, or a PostgreSQL database'
            cand snapshot 'Snapshots of the store''s records: save, list, restore, delete (for test suites)'
            cand reset 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;store;check'= {
            cand --repair 'Rebuild derived data and remove stray temp files'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;migrate'= {
            cand --to 'A directory, or postgresql://user:password@host:port/dbname'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;snapshot'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand save 'Save the store''s records as a snapshot NAME, replacing one of that name'
            cand list 'List the snapshots, oldest first'
            cand restore 'Replace every record of the store with the snapshot''s, at once'
            cand delete 'Delete a snapshot'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;store;snapshot;save'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;snapshot;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;snapshot;restore'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;snapshot;delete'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;snapshot;help'= {
            cand save 'Save the store''s records as a snapshot NAME, replacing one of that name'
            cand list 'List the snapshots, oldest first'
            cand restore 'Replace every record of the store with the snapshot''s, at once'
            cand delete 'Delete a snapshot'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;store;snapshot;help;save'= {
        }
        &'payctl;store;snapshot;help;list'= {
        }
        &'payctl;store;snapshot;help;restore'= {
        }
        &'payctl;store;snapshot;help;delete'= {
        }
        &'payctl;store;snapshot;help;help'= {
        }
        &'payctl;store;reset'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;store;help'= {
            cand check 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store''s invariants hold'
            cand migrate 'Copy this store into an empty one: a directory, or a PostgreSQL database'
            cand snapshot 'Snapshots of the store''s records: save, list, restore, delete (for test suites)'
            cand reset 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;store;help;check'= {
        }
        &'payctl;store;help;migrate'= {
        }
        &'payctl;store;help;snapshot'= {
            cand save 'Save the store''s records as a snapshot NAME, replacing one of that name'
            cand list 'List the snapshots, oldest first'
            cand restore 'Replace every record of the store with the snapshot''s, at once'
            cand delete 'Delete a snapshot'
        }
        &'payctl;store;help;snapshot;save'= {
        }
        &'payctl;store;help;snapshot;list'= {
        }
        &'payctl;store;help;snapshot;restore'= {
        }
        &'payctl;store;help;snapshot;delete'= {
        }
        &'payctl;store;help;reset'= {
        }
        &'payctl;store;help;help'= {
        }
        &'payctl;sim'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand rule 'Outcome rules of the background work: add, list, delete'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;sim;rule'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand add 'Add an outcome rule (after the others: the first that matches an item decides)'
            cand list 'List the outcome rules, in the order they apply'
            cand delete 'Delete an outcome rule'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;sim;rule;add'= {
            cand --on 'The work the rule applies to'
            cand --when 'FIELD=VALUE (equal) or FIELD~REGEX (the regular expression finds a match) [default: every item]. Attach: customer_key, customer_type_id, a customer_profile_individual field (first_name, email, …; not ssn) or tag:KEY. Step: a field of the step''s parameter values (amount, equal as a decimal; customer_profile_id; organization_name, …) or transfer_type_id'
            cand --outcome 'What the worker makes of a matching item: rejected (attach) or failed (step) [default: the usual outcome]'
            cand --reason 'The status reason of the outcome, 1-255 characters (an ACH return: "R01 Insufficient funds") [default: "Rejected/Failed by the payctl sim rule RUL."]'
            cand --after 'The item waits this many seconds (1-604800) before the worker takes it: an attachment from its request, a step from when it became the next to run'
            cand --after-polls 'The item is taken only after it has been read N times (1-1000): GET of the profile-program record; GET of the transaction or its steps for the step next to run'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;sim;rule;list'= {
            cand --page-size 'Records per page (1-1000; default 50, with --all 1000 per request)'
            cand --page-number 'Page to show, from 1'
            cand --after 'Continue after this last_evaluated_key of the previous page'
            cand --all 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;sim;rule;delete'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;sim;rule;help'= {
            cand add 'Add an outcome rule (after the others: the first that matches an item decides)'
            cand list 'List the outcome rules, in the order they apply'
            cand delete 'Delete an outcome rule'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;sim;rule;help;add'= {
        }
        &'payctl;sim;rule;help;list'= {
        }
        &'payctl;sim;rule;help;delete'= {
        }
        &'payctl;sim;rule;help;help'= {
        }
        &'payctl;sim;help'= {
            cand rule 'Outcome rules of the background work: add, list, delete'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;sim;help;rule'= {
            cand add 'Add an outcome rule (after the others: the first that matches an item decides)'
            cand list 'List the outcome rules, in the order they apply'
            cand delete 'Delete an outcome rule'
        }
        &'payctl;sim;help;rule;add'= {
        }
        &'payctl;sim;help;rule;list'= {
        }
        &'payctl;sim;help;rule;delete'= {
        }
        &'payctl;sim;help;help'= {
        }
        &'payctl;config'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand view 'Show the contexts of the config file, the current one marked (a database-url''s password is masked; tokens are never in the file)'
            cand set-context 'Create a context, or change the keys given of one (the other keys are kept)'
            cand use-context 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)'
            cand delete-context 'Delete a context (when it was the current one, no context is current any more)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;config;view'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;config;set-context'= {
            cand --base-url 'Remote mode: the service this context sends commands to (http:// or https://)'
            cand --data-dir 'The store directory of this context (a relative path is made absolute now)'
            cand --database-url 'A PostgreSQL database as the store of this context (postgresql://…); a password in it is written to the file (mode 0600) and never shown'
            cand --token-env 'Remote mode: the NAME of the environment variable the token is read from (the token itself is never written to the file); PAYCTL_TOKEN, when set, still wins'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;config;use-context'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;config;delete-context'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;config;help'= {
            cand view 'Show the contexts of the config file, the current one marked (a database-url''s password is masked; tokens are never in the file)'
            cand set-context 'Create a context, or change the keys given of one (the other keys are kept)'
            cand use-context 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)'
            cand delete-context 'Delete a context (when it was the current one, no context is current any more)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;config;help;view'= {
        }
        &'payctl;config;help;set-context'= {
        }
        &'payctl;config;help;use-context'= {
        }
        &'payctl;config;help;delete-context'= {
        }
        &'payctl;config;help;help'= {
        }
        &'payctl;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;serve'= {
            cand --listen 'Address and port to listen on (port 0: a free one). Beyond loopback, API keys in the store (`payctl key create`) or a token (--token-file, PAYCTL_SERVE_TOKEN or --token) are required'
            cand --token 'An admin credential named `token` (`Authorization: Bearer TOKEN`, compared in constant time), beside the store''s API keys; with it every request needs a credential. 16 or more printable ASCII characters, no space, at least 4 distinct ones (`openssl rand -hex 16`). Every local user can read it in the process list: prefer --token-file or PAYCTL_SERVE_TOKEN'
            cand --token-file 'Read the token (as --token) from FILE: its first line, the line break after it dropped. The file must not be readable by other users (chmod 600 or 640)'
            cand --worker-interval 'Seconds between passes of the background worker (0.01-86400)'
            cand --max-body 'Largest request body in bytes (larger: 413); the import''s JSON Lines (POST /_payctl/customer-profiles/import) are streamed instead, up to 4 GiB'
            cand --request-timeout 'Seconds a client has to send its headers, and then its body (then the connection is closed, or 400); for the import''s streamed body, each part of it'
            cand --log-format 'The access log''s format: text (`TIME METHOD PATH STATUS 1.2ms`) or json (one object per line: ts, method, path, status, ms, key, request_id)'
            cand --tls-cert 'Serve HTTPS with this certificate: a PEM file with the server''s certificate, then any intermediate ones (needs --tls-key)'
            cand --tls-key 'The private key of --tls-cert: a PEM file (PKCS#8, PKCS#1 or SEC1) that other users cannot read (chmod 600)'
            cand --rate-limit 'At most N requests a second per credential (token or key; without one, per client address), in bursts of up to N; more: 429 with Retry-After (10012). Health and readiness are never limited'
            cand --ui-session 'Seconds a console sign-in lasts (its session cookie''s Max-Age), on a server with API keys or a token: 1-604800 (a week), default 8 hours'
            cand --no-worker 'Run no background worker: leave it to `payctl worker` or to POST /_payctl/worker'
            cand --no-webhooks 'Deliver no webhooks: leave it to `payctl webhook deliver`'
            cand -q 'No access log on stderr'
            cand --quiet 'No access log on stderr'
            cand --no-ui 'Serve no console: /ui/ answers 404 like any path without an endpoint'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;key'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand create 'Create an API key and print its secret, once'
            cand list 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)'
            cand revoke 'Revoke a key: every server of the store refuses it from its next request'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;key;create'= {
            cand --role 'What the key may do: reader, writer or admin (each also what the one before may)'
            cand --expires-in 'Days until the key is refused (1-3650) [default: never]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'payctl;key;list'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;key;revoke'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;key;help'= {
            cand create 'Create an API key and print its secret, once'
            cand list 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)'
            cand revoke 'Revoke a key: every server of the store refuses it from its next request'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;key;help;create'= {
        }
        &'payctl;key;help;list'= {
        }
        &'payctl;key;help;revoke'= {
        }
        &'payctl;key;help;help'= {
        }
        &'payctl;openapi'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;demo'= {
            cand --keep 'Keep the scratch store instead of removing it at the end'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;generate-docs'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'payctl;help'= {
            cand profile 'Customer profiles (/customer-profiles)'
            cand address 'Addresses of a customer profile (/customer-profiles/{id}/addresses)'
            cand instrument 'Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)'
            cand program 'Programs, their applications, and attaching customers (/programs)'
            cand template 'Transaction templates and their steps (/applications/{id}/transaction-templates)'
            cand txn 'Transactions, their parameters and steps (/transactions)'
            cand dict 'Dictionaries: the values other requests refer to by number (/dictionaries)'
            cand events 'The event log: what changed, who changed it, when (GET /events; ours)'
            cand history 'One record''s events, oldest first: who changed it, when, and what it became (ours)'
            cand webhook 'Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)'
            cand listen 'Follow the events and POST each, signed, to a local URL (development; ours)'
            cand worker 'Do the background work: attachments, transaction steps'
            cand init 'Create a store, with the built-in catalog or your own'
            cand store 'The store: integrity, migration, snapshots and reset'
            cand sim 'Outcomes on demand for test suites: rules for the background work (ours)'
            cand config 'Contexts: named stores and services in a config file, picked with --context'
            cand completions 'Print a static completion script; --help says how to install the dynamic one, which completes ids and names too'
            cand serve 'Serve the HTTP API over the store (ours)'
            cand key 'API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)'
            cand openapi 'Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)'
            cand demo 'Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)'
            cand generate-docs 'Write completions/ and man/ into DIR (for maintainers)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'payctl;help;profile'= {
            cand create 'Create a customer profile (POST /customer-profiles)'
            cand list 'List customer profiles, oldest first (GET /customer-profiles)'
            cand get 'Show one customer profile (GET /customer-profiles/{id})'
            cand update 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})'
            cand import 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)'
        }
        &'payctl;help;profile;create'= {
        }
        &'payctl;help;profile;list'= {
        }
        &'payctl;help;profile;get'= {
        }
        &'payctl;help;profile;update'= {
        }
        &'payctl;help;profile;import'= {
        }
        &'payctl;help;address'= {
            cand create 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)'
            cand list 'List the addresses of a customer profile, oldest first (GET …/addresses)'
            cand get 'Show one address (GET …/addresses/{address_id})'
            cand update 'Change an address; only the fields given change (PUT …/addresses/{address_id})'
            cand delete 'Delete an address (DELETE …/addresses/{address_id})'
        }
        &'payctl;help;address;create'= {
        }
        &'payctl;help;address;list'= {
        }
        &'payctl;help;address;get'= {
        }
        &'payctl;help;address;update'= {
        }
        &'payctl;help;address;delete'= {
        }
        &'payctl;help;instrument'= {
            cand create 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)'
            cand list 'List a profile''s payment instruments, oldest first'
            cand get 'Show one payment instrument'
            cand update 'Change the label, the change reason or is_default (nothing else can change: 10003)'
        }
        &'payctl;help;instrument;create'= {
        }
        &'payctl;help;instrument;list'= {
        }
        &'payctl;help;instrument;get'= {
        }
        &'payctl;help;instrument;update'= {
        }
        &'payctl;help;program'= {
            cand list 'List the Facilitator''s Programs (GET /programs)'
            cand applications 'List the Applications of a Program (GET /programs/{id}/applications)'
            cand attach 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)'
            cand profiles 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)'
            cand profile 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})'
        }
        &'payctl;help;program;list'= {
        }
        &'payctl;help;program;applications'= {
        }
        &'payctl;help;program;attach'= {
        }
        &'payctl;help;program;profiles'= {
        }
        &'payctl;help;program;profile'= {
        }
        &'payctl;help;template'= {
            cand list 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)'
            cand steps 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)'
        }
        &'payctl;help;template;list'= {
        }
        &'payctl;help;template;steps'= {
        }
        &'payctl;help;txn'= {
            cand create 'Create a transaction (POST /transactions)'
            cand get 'Show one transaction (GET /transactions/{id})'
            cand list 'List transactions, oldest first (ours)'
            cand parameters 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)'
            cand steps 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)'
        }
        &'payctl;help;txn;create'= {
        }
        &'payctl;help;txn;get'= {
        }
        &'payctl;help;txn;list'= {
        }
        &'payctl;help;txn;parameters'= {
        }
        &'payctl;help;txn;steps'= {
        }
        &'payctl;help;dict'= {
            cand list 'List a dictionary''s values, or without NAME the dictionary names (GET /dictionaries/NAME)'
        }
        &'payctl;help;dict;list'= {
        }
        &'payctl;help;events'= {
            cand list 'List events, oldest first (GET /events)'
            cand get 'Show one event (GET /events/{event_id})'
            cand tail 'Follow new events, one JSON line each, until interrupted (polls GET /events)'
            cand resend 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)'
        }
        &'payctl;help;events;list'= {
        }
        &'payctl;help;events;get'= {
        }
        &'payctl;help;events;tail'= {
        }
        &'payctl;help;events;resend'= {
        }
        &'payctl;help;history'= {
        }
        &'payctl;help;webhook'= {
            cand create 'Create a webhook and print its signing secret, once (POST /webhooks)'
            cand list 'List webhooks, oldest first, secrets masked (GET /webhooks)'
            cand get 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})'
            cand delete 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})'
            cand deliveries 'List a webhook''s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)'
            cand deliver 'Deliver what is due to every webhook, without a server, then exit (or --watch)'
        }
        &'payctl;help;webhook;create'= {
        }
        &'payctl;help;webhook;list'= {
        }
        &'payctl;help;webhook;get'= {
        }
        &'payctl;help;webhook;delete'= {
        }
        &'payctl;help;webhook;deliveries'= {
        }
        &'payctl;help;webhook;deliver'= {
        }
        &'payctl;help;listen'= {
        }
        &'payctl;help;worker'= {
        }
        &'payctl;help;init'= {
        }
        &'payctl;help;store'= {
            cand check 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store''s invariants hold'
            cand migrate 'Copy this store into an empty one: a directory, or a PostgreSQL database'
            cand snapshot 'Snapshots of the store''s records: save, list, restore, delete (for test suites)'
            cand reset 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules'
        }
        &'payctl;help;store;check'= {
        }
        &'payctl;help;store;migrate'= {
        }
        &'payctl;help;store;snapshot'= {
            cand save 'Save the store''s records as a snapshot NAME, replacing one of that name'
            cand list 'List the snapshots, oldest first'
            cand restore 'Replace every record of the store with the snapshot''s, at once'
            cand delete 'Delete a snapshot'
        }
        &'payctl;help;store;snapshot;save'= {
        }
        &'payctl;help;store;snapshot;list'= {
        }
        &'payctl;help;store;snapshot;restore'= {
        }
        &'payctl;help;store;snapshot;delete'= {
        }
        &'payctl;help;store;reset'= {
        }
        &'payctl;help;sim'= {
            cand rule 'Outcome rules of the background work: add, list, delete'
        }
        &'payctl;help;sim;rule'= {
            cand add 'Add an outcome rule (after the others: the first that matches an item decides)'
            cand list 'List the outcome rules, in the order they apply'
            cand delete 'Delete an outcome rule'
        }
        &'payctl;help;sim;rule;add'= {
        }
        &'payctl;help;sim;rule;list'= {
        }
        &'payctl;help;sim;rule;delete'= {
        }
        &'payctl;help;config'= {
            cand view 'Show the contexts of the config file, the current one marked (a database-url''s password is masked; tokens are never in the file)'
            cand set-context 'Create a context, or change the keys given of one (the other keys are kept)'
            cand use-context 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)'
            cand delete-context 'Delete a context (when it was the current one, no context is current any more)'
        }
        &'payctl;help;config;view'= {
        }
        &'payctl;help;config;set-context'= {
        }
        &'payctl;help;config;use-context'= {
        }
        &'payctl;help;config;delete-context'= {
        }
        &'payctl;help;completions'= {
        }
        &'payctl;help;serve'= {
        }
        &'payctl;help;key'= {
            cand create 'Create an API key and print its secret, once'
            cand list 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)'
            cand revoke 'Revoke a key: every server of the store refuses it from its next request'
        }
        &'payctl;help;key;create'= {
        }
        &'payctl;help;key;list'= {
        }
        &'payctl;help;key;revoke'= {
        }
        &'payctl;help;openapi'= {
        }
        &'payctl;help;demo'= {
        }
        &'payctl;help;generate-docs'= {
        }
        &'payctl;help;help'= {
        }
    ]
    $completions[$command]
}
