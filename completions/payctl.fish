# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_payctl_global_optspecs
    string join \n data-dir= database-url= o/output= context= actor= no-input no-headers y/yes lock-timeout= color= base-url= http-timeout= ca-cert= h/help V/version
end

function __fish_payctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_payctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_payctl_using_subcommand
    set -l cmd (__fish_payctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c payctl -n "__fish_payctl_needs_command" -l data-dir -d 'The store (default: the platform data dir, ~/.local/share/payctl on Linux)' -r -F
complete -c payctl -n "__fish_payctl_needs_command" -l database-url -d 'A PostgreSQL database as the store instead of --data-dir: postgresql://user:password@host:port/dbname[?sslmode=…&sslrootcert=PATH]' -r
complete -c payctl -n "__fish_payctl_needs_command" -s o -l output -d 'Output format: table, json, jsonl (one record per line) or id [default: table on a terminal, else json]' -r -f -a "table\t''
json\t''
jsonl\t'JSON Lines: one record per line (the records of `data`, nothing else); a failure is still the envelope'
id\t''"
complete -c payctl -n "__fish_payctl_needs_command" -l context -d 'The context of the config file to use (see `payctl config`) [default: its current-context]' -r
complete -c payctl -n "__fish_payctl_needs_command" -l actor -d 'Name written to created_by / modified_by, 1-64 characters [default: the OS user name]' -r
complete -c payctl -n "__fish_payctl_needs_command" -l lock-timeout -d 'Seconds to wait for another payctl that holds the store' -r
complete -c payctl -n "__fish_payctl_needs_command" -l color -d 'Colour: auto, always, never (NO_COLOR is respected)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c payctl -n "__fish_payctl_needs_command" -l base-url -d 'Remote mode: send each command to the service at URL; PAYCTL_TOKEN is its bearer token' -r
complete -c payctl -n "__fish_payctl_needs_command" -l http-timeout -d 'Remote mode: seconds to wait for each phase of an exchange (then 30007 when nothing was sent, 30020 once the request went out)' -r
complete -c payctl -n "__fish_payctl_needs_command" -l ca-cert -d 'Remote mode over https://: trust only the CA certificates of this PEM file' -r -F
complete -c payctl -n "__fish_payctl_needs_command" -l no-input -d 'Never prompt (prompts happen only when stdin is a terminal)'
complete -c payctl -n "__fish_payctl_needs_command" -l no-headers -d 'Tables without their header row and page footer (rows only, for `awk` and `cut`)'
complete -c payctl -n "__fish_payctl_needs_command" -s y -l yes -d 'Confirm destructive commands without asking'
complete -c payctl -n "__fish_payctl_needs_command" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_needs_command" -s V -l version -d 'Print version'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "profile" -d 'Customer profiles (/customer-profiles)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "address" -d 'Addresses of a customer profile (/customer-profiles/{id}/addresses)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "instrument" -d 'Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "program" -d 'Programs, their applications, and attaching customers (/programs)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "template" -d 'Transaction templates and their steps (/applications/{id}/transaction-templates)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "txn" -d 'Transactions, their parameters and steps (/transactions)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "dict" -d 'Dictionaries: the values other requests refer to by number (/dictionaries)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "events" -d 'The event log: what changed, who changed it, when (GET /events; ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "history" -d 'One record\'s events, oldest first: who changed it, when, and what it became (ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "webhook" -d 'Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "listen" -d '`payctl listen`'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "worker" -d 'Do the background work: attachments, transaction steps'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "init" -d 'Create a store, with the built-in catalog or your own'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "store" -d 'The store: integrity, migration, snapshots and reset'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "sim" -d 'Outcomes on demand for test suites: rules for the background work (ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "config" -d 'Contexts: named stores and services in a config file, picked with --context'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "completions" -d 'Print a static completion script; --help says how to install the dynamic one, which completes ids and names too'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "serve" -d 'Serve the HTTP API over the store (ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "key" -d 'API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "openapi" -d 'Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "demo" -d 'Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "generate-docs" -d 'Write completions/ and man/ into DIR (for maintainers)'
complete -c payctl -n "__fish_payctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -f -a "create" -d 'Create a customer profile (POST /customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -f -a "list" -d 'List customer profiles, oldest first (GET /customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -f -a "get" -d 'Show one customer profile (GET /customer-profiles/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -f -a "update" -d 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -f -a "import" -d 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and not __fish_seen_subcommand_from create list get update import help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l customer-type-id -d 'customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)' -r -f -a "Individual\t'Individual (id 1)'
Organization\t'Organization (id 2)'
Facilitator\t'Facilitator (id 3)'
CustomersOfProgram\t'Customers of Program (id 4)'"
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l customer-key -d 'customer_key: 5-50 of digits, letters, ! @ . - _ # (unique)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l tag -d 'A customer_profile_tags entry (repeatable, at most 50)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l first-name -d 'first_name: 1-50 characters (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l middle-name -d 'middle_name: 0-50 characters (optional)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l last-name -d 'last_name: 1-50 characters (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l email -d 'email: an e-mail address, at most 256 characters (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l date-of-birth -d 'date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator\'s age limits (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l ssn -d 'ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l mobile-phone -d 'mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l home-phone -d 'home_phone: +, a digit 1-9, then 1 to 15 digits (optional)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l office-phone -d 'office_phone: +, a digit 1-9, then 1 to 15 digits (optional)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l idempotency-key -d 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request\'s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l first-name -d 'Only profiles with this first name (any case)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l last-name -d 'Only profiles with this last name (any case)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l email -d 'Only profiles with this e-mail address (any case)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l customer-key -d 'Only the profile with this customer_key' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l tag -d 'Only profiles with this tag (repeatable; all must match)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l customer-type-id -d 'customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)' -r -f -a "Individual\t'Individual (id 1)'
Organization\t'Organization (id 2)'
Facilitator\t'Facilitator (id 3)'
CustomersOfProgram\t'Customers of Program (id 4)'"
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l customer-key -d 'customer_key: 5-50 of digits, letters, ! @ . - _ # (unique)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l tag -d 'A customer_profile_tags entry (repeatable, at most 50)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l first-name -d 'first_name: 1-50 characters (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l middle-name -d 'middle_name: 0-50 characters (optional)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l last-name -d 'last_name: 1-50 characters (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l email -d 'email: an e-mail address, at most 256 characters (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l date-of-birth -d 'date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator\'s age limits (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l ssn -d 'ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l mobile-phone -d 'mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l home-phone -d 'home_phone: +, a digit 1-9, then 1 to 15 digits (optional)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l office-phone -d 'office_phone: +, a digit 1-9, then 1 to 15 digits (optional)' -r
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from import" -l skip-existing -d 'Skip lines whose customer_key a stored profile already has (instead of refusing)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a customer profile (POST /customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from help" -f -a "list" -d 'List customer profiles, oldest first (GET /customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one customer profile (GET /customer-profiles/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from help" -f -a "import" -d 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand profile; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -f -a "create" -d 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -f -a "list" -d 'List the addresses of a customer profile, oldest first (GET …/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -f -a "get" -d 'Show one address (GET …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -f -a "update" -d 'Change an address; only the fields given change (PUT …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -f -a "delete" -d 'Delete an address (DELETE …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand address; and not __fish_seen_subcommand_from create list get update delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l address-type-id -d 'address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)' -r -f -a "Mailing\t'Mailing (id 1)'
Street\t'Street (id 2)'
Billing\t'Billing (id 3)'"
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l default -d 'is_default: make this the profile\'s one default address' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l country-id -d 'country_id: only 1 (US, the United States) is supported' -r -f -a "US\t'United States (id 1)'"
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l state-id -d 'state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`' -r -f -a "AL\t'Alabama (id 1)'
AK\t'Alaska (id 2)'
AS\t'American Samoa (id 3)'
AZ\t'Arizona (id 4)'
AR\t'Arkansas (id 5)'
CA\t'California (id 6)'
CO\t'Colorado (id 7)'
CT\t'Connecticut (id 8)'
DE\t'Delaware (id 9)'
DC\t'District of Columbia (id 10)'
FL\t'Florida (id 11)'
GA\t'Georgia (id 12)'
GU\t'Guam (id 13)'
HI\t'Hawaii (id 14)'
ID\t'Idaho (id 15)'
IL\t'Illinois (id 16)'
IN\t'Indiana (id 17)'
IA\t'Iowa (id 18)'
KS\t'Kansas (id 19)'
KY\t'Kentucky (id 20)'
LA\t'Louisiana (id 21)'
ME\t'Maine (id 22)'
MD\t'Maryland (id 23)'
MA\t'Massachusetts (id 24)'
MI\t'Michigan (id 25)'
MN\t'Minnesota (id 26)'
MS\t'Mississippi (id 27)'
MO\t'Missouri (id 28)'
MT\t'Montana (id 29)'
NE\t'Nebraska (id 30)'
NV\t'Nevada (id 31)'
NH\t'New Hampshire (id 32)'
NJ\t'New Jersey (id 33)'
NM\t'New Mexico (id 34)'
NY\t'New York (id 35)'
NC\t'North Carolina (id 36)'
ND\t'North Dakota (id 37)'
MP\t'Northern Mariana Islands (id 38)'
OH\t'Ohio (id 39)'
OK\t'Oklahoma (id 40)'
OR\t'Oregon (id 41)'
PA\t'Pennsylvania (id 42)'
PR\t'Puerto Rico (id 43)'
RI\t'Rhode Island (id 44)'
SC\t'South Carolina (id 45)'
SD\t'South Dakota (id 46)'
TN\t'Tennessee (id 47)'
TX\t'Texas (id 48)'
VI\t'U.S. Virgin Islands (id 49)'
UT\t'Utah (id 50)'
VT\t'Vermont (id 51)'
VA\t'Virginia (id 52)'
WA\t'Washington (id 53)'
WV\t'West Virginia (id 54)'
WI\t'Wisconsin (id 55)'
WY\t'Wyoming (id 56)'"
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l first-name -d '1-50 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l last-name -d '1-50 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l address-line1 -d '1-256 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l address-line2 -d '1-256 characters (an empty string is accepted)' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l city -d '1-50 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l zip -d 'xxxxx or xxxxx-xxxx' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l idempotency-key -d 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request\'s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l address-type-id -d 'address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)' -r -f -a "Mailing\t'Mailing (id 1)'
Street\t'Street (id 2)'
Billing\t'Billing (id 3)'"
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l default -d 'is_default: make this the profile\'s one default address' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l country-id -d 'country_id: only 1 (US, the United States) is supported' -r -f -a "US\t'United States (id 1)'"
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l state-id -d 'state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`' -r -f -a "AL\t'Alabama (id 1)'
AK\t'Alaska (id 2)'
AS\t'American Samoa (id 3)'
AZ\t'Arizona (id 4)'
AR\t'Arkansas (id 5)'
CA\t'California (id 6)'
CO\t'Colorado (id 7)'
CT\t'Connecticut (id 8)'
DE\t'Delaware (id 9)'
DC\t'District of Columbia (id 10)'
FL\t'Florida (id 11)'
GA\t'Georgia (id 12)'
GU\t'Guam (id 13)'
HI\t'Hawaii (id 14)'
ID\t'Idaho (id 15)'
IL\t'Illinois (id 16)'
IN\t'Indiana (id 17)'
IA\t'Iowa (id 18)'
KS\t'Kansas (id 19)'
KY\t'Kentucky (id 20)'
LA\t'Louisiana (id 21)'
ME\t'Maine (id 22)'
MD\t'Maryland (id 23)'
MA\t'Massachusetts (id 24)'
MI\t'Michigan (id 25)'
MN\t'Minnesota (id 26)'
MS\t'Mississippi (id 27)'
MO\t'Missouri (id 28)'
MT\t'Montana (id 29)'
NE\t'Nebraska (id 30)'
NV\t'Nevada (id 31)'
NH\t'New Hampshire (id 32)'
NJ\t'New Jersey (id 33)'
NM\t'New Mexico (id 34)'
NY\t'New York (id 35)'
NC\t'North Carolina (id 36)'
ND\t'North Dakota (id 37)'
MP\t'Northern Mariana Islands (id 38)'
OH\t'Ohio (id 39)'
OK\t'Oklahoma (id 40)'
OR\t'Oregon (id 41)'
PA\t'Pennsylvania (id 42)'
PR\t'Puerto Rico (id 43)'
RI\t'Rhode Island (id 44)'
SC\t'South Carolina (id 45)'
SD\t'South Dakota (id 46)'
TN\t'Tennessee (id 47)'
TX\t'Texas (id 48)'
VI\t'U.S. Virgin Islands (id 49)'
UT\t'Utah (id 50)'
VT\t'Vermont (id 51)'
VA\t'Virginia (id 52)'
WA\t'Washington (id 53)'
WV\t'West Virginia (id 54)'
WI\t'Wisconsin (id 55)'
WY\t'Wyoming (id 56)'"
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l first-name -d '1-50 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l last-name -d '1-50 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l address-line1 -d '1-256 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l address-line2 -d '1-256 characters (an empty string is accepted)' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l city -d '1-50 characters' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l zip -d 'xxxxx or xxxxx-xxxx' -r
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from delete" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from help" -f -a "create" -d 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the addresses of a customer profile, oldest first (GET …/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one address (GET …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change an address; only the fields given change (PUT …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete an address (DELETE …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand address; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and not __fish_seen_subcommand_from create list get update help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and not __fish_seen_subcommand_from create list get update help" -f -a "create" -d 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and not __fish_seen_subcommand_from create list get update help" -f -a "list" -d 'List a profile\'s payment instruments, oldest first'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and not __fish_seen_subcommand_from create list get update help" -f -a "get" -d 'Show one payment instrument'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and not __fish_seen_subcommand_from create list get update help" -f -a "update" -d 'Change the label, the change reason or is_default (nothing else can change: 10003)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and not __fish_seen_subcommand_from create list get update help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l type-id -d 'payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal' -r -f -a "Funding\t'Funding (id 1)'
Withdrawal\t'Withdrawal (id 2)'"
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l payment-method-id -d 'payment_method_id: an id or a name: 1 ACH (the only one supported)' -r -f -a "ACH\t'ACH (id 1)'"
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l default -d 'is_default: one default per profile and instrument type' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l label -d 'payment_instrument_label (1-256 characters)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l change-reason -d 'payment_instrument_change_reason (1-256 characters)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l program -d 'program_id the customer is Attached to (prm_…)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l account-number -d '4-17 digits' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l routing-number -d 'exactly 9 digits' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l ach-type-id -d 'payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking' -r -f -a "Savings\t'Savings (id 1)'
Checking\t'Checking (id 2)'"
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l tag -d 'A payment_instrument_tags entry (repeatable, at most 50; keys unique)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l idempotency-key -d 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request\'s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l type-id -d 'payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal' -r -f -a "Funding\t'Funding (id 1)'
Withdrawal\t'Withdrawal (id 2)'"
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l payment-method-id -d 'payment_method_id: an id or a name: 1 ACH (the only one supported)' -r -f -a "ACH\t'ACH (id 1)'"
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l default -d 'is_default: one default per profile and instrument type' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l label -d 'payment_instrument_label (1-256 characters)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l change-reason -d 'payment_instrument_change_reason (1-256 characters)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l program -d 'program_id the customer is Attached to (prm_…)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l account-number -d '4-17 digits' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l routing-number -d 'exactly 9 digits' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l ach-type-id -d 'payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking' -r -f -a "Savings\t'Savings (id 1)'
Checking\t'Checking (id 2)'"
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l tag -d 'A payment_instrument_tags entry (repeatable, at most 50; keys unique)' -r
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from help" -f -a "create" -d 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a profile\'s payment instruments, oldest first'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one payment instrument'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change the label, the change reason or is_default (nothing else can change: 10003)'
complete -c payctl -n "__fish_payctl_using_subcommand instrument; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -f -a "list" -d 'List the Facilitator\'s Programs (GET /programs)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -f -a "applications" -d 'List the Applications of a Program (GET /programs/{id}/applications)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -f -a "attach" -d 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -f -a "profiles" -d 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -f -a "profile" -d 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})'
complete -c payctl -n "__fish_payctl_using_subcommand program; and not __fish_seen_subcommand_from list applications attach profiles profile help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from applications" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from applications" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from applications" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from applications" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from applications" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -l reason -d 'customer_profile_program_status_reason: why the profile is attached (0-256 characters)' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -l timeout -d 'Seconds to wait with --wait; then the answer is printed as without --wait, 30005 (Timed out) on stderr says what is still pending, and the exit code is 4' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -l idempotency-key -d 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request\'s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -l wait -d 'Wait until the worker has processed the request (poll every 200 ms)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from attach" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from profiles" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from profiles" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from profiles" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from profiles" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from profiles" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from profile" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the Facilitator\'s Programs (GET /programs)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from help" -f -a "applications" -d 'List the Applications of a Program (GET /programs/{id}/applications)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from help" -f -a "attach" -d 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from help" -f -a "profiles" -d 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from help" -f -a "profile" -d 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})'
complete -c payctl -n "__fish_payctl_using_subcommand program; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and not __fish_seen_subcommand_from list steps help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand template; and not __fish_seen_subcommand_from list steps help" -f -a "list" -d 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and not __fish_seen_subcommand_from list steps help" -f -a "steps" -d 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and not __fish_seen_subcommand_from list steps help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from steps" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from steps" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from steps" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from steps" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from steps" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from help" -f -a "steps" -d 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)'
complete -c payctl -n "__fish_payctl_using_subcommand template; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -f -a "create" -d 'Create a transaction (POST /transactions)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -f -a "get" -d 'Show one transaction (GET /transactions/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -f -a "list" -d 'List transactions, oldest first (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -f -a "parameters" -d 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -f -a "steps" -d 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and not __fish_seen_subcommand_from create get list parameters steps help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l body -d 'The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l program -d 'program_id: a prm_ id or a program name' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l application -d 'application_id: an app_ id or an application name of the program' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l template -d 'transaction_template_id: a trt_ id or a template name of the application' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l reason -d 'transaction_status_reason' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l tag -d 'A transaction_tags entry (repeatable, at most 50; replaces the tags of --body)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l param -d 'A parameter value: NAME=CSP:AMOUNT[:PIN] (@source_customers, @targets; PIN the account_id) or NAME=AMOUNT (@facilitator); repeatable' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l check -d 'A @target_checks value: \'AMOUNT;key=value;…\' (see below); repeatable' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l timeout -d 'Seconds to wait with --wait; then the answer is printed as without --wait, 30005 (Timed out) on stderr says what is still pending, and the exit code is 4' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l idempotency-key -d 'Make a retry safe: a create given a KEY used in the last 24 hours for the same request (same command, ids and body) answers that request\'s id and changes nothing; for another request it is refused (21005). 1-255 ASCII letters, digits or - _ . : ~ + / =' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l wait -d 'Wait until the worker has processed the request (poll every 200 ms)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -l dry-run -d 'Check the request exactly as it would run (every rule, every reference) and print the record as it would be (a new one\'s id reads "(new)"); write nothing'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l status -d 'Only transactions with this transaction_status_id, or its name (Failed)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l template -d 'Only transactions of this template (id, or name in any application)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l program -d 'Only transactions of this program (id or name)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l customer -d 'Only transactions whose parameters name this customer profile' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from parameters" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from parameters" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from parameters" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from parameters" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from parameters" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from steps" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from steps" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from steps" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from steps" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from steps" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a transaction (POST /transactions)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one transaction (GET /transactions/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from help" -f -a "list" -d 'List transactions, oldest first (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from help" -f -a "parameters" -d 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from help" -f -a "steps" -d 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)'
complete -c payctl -n "__fish_payctl_using_subcommand txn; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and not __fish_seen_subcommand_from list help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and not __fish_seen_subcommand_from list help" -f -a "list" -d 'List a dictionary\'s values, or without NAME the dictionary names (GET /dictionaries/NAME)'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and not __fish_seen_subcommand_from list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from list" -l country -d 'The country of `states` (GET /dictionaries/countries/{country_id}/states), 1 (the United States) when not given; a country that is not in `countries` answers 20001. Only `states` takes it: with another dictionary it is a usage error' -r
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from help" -f -a "list" -d 'List a dictionary\'s values, or without NAME the dictionary names (GET /dictionaries/NAME)'
complete -c payctl -n "__fish_payctl_using_subcommand dict; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and not __fish_seen_subcommand_from list get tail resend help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand events; and not __fish_seen_subcommand_from list get tail resend help" -f -a "list" -d 'List events, oldest first (GET /events)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and not __fish_seen_subcommand_from list get tail resend help" -f -a "get" -d 'Show one event (GET /events/{event_id})'
complete -c payctl -n "__fish_payctl_using_subcommand events; and not __fish_seen_subcommand_from list get tail resend help" -f -a "tail" -d 'Follow new events, one JSON line each, until interrupted (polls GET /events)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and not __fish_seen_subcommand_from list get tail resend help" -f -a "resend" -d 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and not __fish_seen_subcommand_from list get tail resend help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l type -d 'Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l record -d 'Only the events of this record (an attachment\'s events carry its customer\'s id)' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l since -d 'Only events created at or after this UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.ffffff][Z])' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from tail" -l type -d 'Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from tail" -l record -d 'Only the events of this record (an attachment\'s events carry its customer\'s id)' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from tail" -l from -d 'Start at this sequence (the events from it on, then the new ones); default: only new ones' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from tail" -l interval -d 'Seconds between two looks at the log (0.1-60)' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from tail" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from resend" -l webhook -d 'The webhook to send it to (whk_…)' -r
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from resend" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "list" -d 'List events, oldest first (GET /events)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one event (GET /events/{event_id})'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "tail" -d 'Follow new events, one JSON line each, until interrupted (polls GET /events)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "resend" -d 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)'
complete -c payctl -n "__fish_payctl_using_subcommand events; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand history" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand history" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand history" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand history" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand history" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "create" -d 'Create a webhook and print its signing secret, once (POST /webhooks)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "list" -d 'List webhooks, oldest first, secrets masked (GET /webhooks)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "get" -d 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "delete" -d 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "deliveries" -d 'List a webhook\'s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "deliver" -d 'Deliver what is due to every webhook, without a server, then exit (or --watch)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and not __fish_seen_subcommand_from create list get delete deliveries deliver help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from create" -l url -d 'Where the events are POSTed: an http:// or https:// URL' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from create" -l events -d 'Only events of these types or globs (`transaction.*`), comma-separated or repeated [default: *]' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from create" -l description -d 'What the webhook is for (0-500 characters)' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from list" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from list" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from list" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from list" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l page-size -d 'Records per page (1-1000; default 50, with --all 1000 per request)' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l page-number -d 'Page to show, from 1' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l after -d 'Continue after this last_evaluated_key of the previous page' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -l all -d 'Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliveries" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliver" -l interval -d 'With --watch: seconds between two looks at the log (0.1-60)' -r
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliver" -l watch -d 'Keep delivering new events and retries until Ctrl-C or SIGTERM'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from deliver" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a webhook and print its signing secret, once (POST /webhooks)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "list" -d 'List webhooks, oldest first, secrets masked (GET /webhooks)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "get" -d 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "deliveries" -d 'List a webhook\'s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "deliver" -d 'Deliver what is due to every webhook, without a server, then exit (or --watch)'
complete -c payctl -n "__fish_payctl_using_subcommand webhook; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand listen" -l forward-to -d 'POST each event here, signed: an http:// or https:// URL' -r
complete -c payctl -n "__fish_payctl_using_subcommand listen" -l events -d 'Only events of these types or globs, comma-separated or repeated [default: *]' -r
complete -c payctl -n "__fish_payctl_using_subcommand listen" -l secret -d 'The signing secret [default: a new whsec_… each run, printed on stderr]' -r
complete -c payctl -n "__fish_payctl_using_subcommand listen" -l interval -d 'Seconds between two looks at the log (0.1-60)' -r
complete -c payctl -n "__fish_payctl_using_subcommand listen" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand worker" -l interval -d 'Seconds between polls with --watch (fractions allowed, 0.01-86400)' -r
complete -c payctl -n "__fish_payctl_using_subcommand worker" -l watch -d 'Keep polling the queue until interrupted (Ctrl-C or SIGTERM)'
complete -c payctl -n "__fish_payctl_using_subcommand worker" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand init" -l catalog -d 'A catalog of Programs, Applications and Templates as JSON (the shape of the built-in one; at most 16 MiB)' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand init" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand store; and not __fish_seen_subcommand_from check migrate snapshot reset help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand store; and not __fish_seen_subcommand_from check migrate snapshot reset help" -f -a "check" -d 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store\'s invariants hold'
complete -c payctl -n "__fish_payctl_using_subcommand store; and not __fish_seen_subcommand_from check migrate snapshot reset help" -f -a "migrate" -d 'Copy this store into an empty one: a directory, or a PostgreSQL database'
complete -c payctl -n "__fish_payctl_using_subcommand store; and not __fish_seen_subcommand_from check migrate snapshot reset help" -f -a "snapshot" -d 'Snapshots of the store\'s records: save, list, restore, delete (for test suites)'
complete -c payctl -n "__fish_payctl_using_subcommand store; and not __fish_seen_subcommand_from check migrate snapshot reset help" -f -a "reset" -d 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules'
complete -c payctl -n "__fish_payctl_using_subcommand store; and not __fish_seen_subcommand_from check migrate snapshot reset help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from check" -l repair -d 'Rebuild derived data and remove stray temp files'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from migrate" -l to -d 'A directory, or postgresql://user:password@host:port/dbname' -r
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from migrate" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from snapshot" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from snapshot" -f -a "save" -d 'Save the store\'s records as a snapshot NAME, replacing one of that name'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from snapshot" -f -a "list" -d 'List the snapshots, oldest first'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from snapshot" -f -a "restore" -d 'Replace every record of the store with the snapshot\'s, at once'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from snapshot" -f -a "delete" -d 'Delete a snapshot'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from snapshot" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from reset" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store\'s invariants hold'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "migrate" -d 'Copy this store into an empty one: a directory, or a PostgreSQL database'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "snapshot" -d 'Snapshots of the store\'s records: save, list, restore, delete (for test suites)'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "reset" -d 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules'
complete -c payctl -n "__fish_payctl_using_subcommand store; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and not __fish_seen_subcommand_from rule help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and not __fish_seen_subcommand_from rule help" -f -a "rule" -d 'Outcome rules of the background work: add, list, delete'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and not __fish_seen_subcommand_from rule help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from rule" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from rule" -f -a "add" -d 'Add an outcome rule (after the others: the first that matches an item decides)'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from rule" -f -a "list" -d 'List the outcome rules, in the order they apply'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from rule" -f -a "delete" -d 'Delete an outcome rule'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from rule" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "rule" -d 'Outcome rules of the background work: add, list, delete'
complete -c payctl -n "__fish_payctl_using_subcommand sim; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and not __fish_seen_subcommand_from view set-context use-context delete-context help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand config; and not __fish_seen_subcommand_from view set-context use-context delete-context help" -f -a "view" -d 'Show the contexts of the config file, the current one marked (a database-url\'s password is masked; tokens are never in the file)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and not __fish_seen_subcommand_from view set-context use-context delete-context help" -f -a "set-context" -d 'Create a context, or change the keys given of one (the other keys are kept)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and not __fish_seen_subcommand_from view set-context use-context delete-context help" -f -a "use-context" -d 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and not __fish_seen_subcommand_from view set-context use-context delete-context help" -f -a "delete-context" -d 'Delete a context (when it was the current one, no context is current any more)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and not __fish_seen_subcommand_from view set-context use-context delete-context help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from view" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from set-context" -l base-url -d 'Remote mode: the service this context sends commands to (http:// or https://)' -r
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from set-context" -l data-dir -d 'The store directory of this context (a relative path is made absolute now)' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from set-context" -l database-url -d 'A PostgreSQL database as the store of this context (postgresql://…); a password in it is written to the file (mode 0600) and never shown' -r
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from set-context" -l token-env -d 'Remote mode: the NAME of the environment variable the token is read from (the token itself is never written to the file); PAYCTL_TOKEN, when set, still wins' -r
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from set-context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from use-context" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from delete-context" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "view" -d 'Show the contexts of the config file, the current one marked (a database-url\'s password is masked; tokens are never in the file)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set-context" -d 'Create a context, or change the keys given of one (the other keys are kept)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "use-context" -d 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "delete-context" -d 'Delete a context (when it was the current one, no context is current any more)'
complete -c payctl -n "__fish_payctl_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand completions" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l listen -d 'Address and port to listen on (port 0: a free one). Beyond loopback, API keys in the store (`payctl key create`) or a token (--token-file, PAYCTL_SERVE_TOKEN or --token) are required' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l token -d 'An admin credential named `token` (`Authorization: Bearer TOKEN`, compared in constant time), beside the store\'s API keys; with it every request needs a credential. 16 or more printable ASCII characters, no space, at least 4 distinct ones (`openssl rand -hex 16`). Every local user can read it in the process list: prefer --token-file or PAYCTL_SERVE_TOKEN' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l token-file -d 'Read the token (as --token) from FILE: its first line, the line break after it dropped. The file must not be readable by other users (chmod 600 or 640)' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l worker-interval -d 'Seconds between passes of the background worker (0.01-86400)' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l max-body -d 'Largest request body in bytes (larger: 413); the import\'s JSON Lines (POST /_payctl/customer-profiles/import) are streamed instead, up to 4 GiB' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l request-timeout -d 'Seconds a client has to send its headers, and then its body (then the connection is closed, or 400); for the import\'s streamed body, each part of it' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l log-format -d 'The access log\'s format: text (`TIME METHOD PATH STATUS 1.2ms`) or json (one object per line: ts, method, path, status, ms, key, request_id)' -r -f -a "text\t'`2026-01-02T03:04:05.678Z GET /customer-profiles 200 1.2ms`'
json\t'One JSON object per line: ts, method, path, status, ms, key, request_id'"
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l tls-cert -d 'Serve HTTPS with this certificate: a PEM file with the server\'s certificate, then any intermediate ones (needs --tls-key)' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l tls-key -d 'The private key of --tls-cert: a PEM file (PKCS#8, PKCS#1 or SEC1) that other users cannot read (chmod 600)' -r -F
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l rate-limit -d 'At most N requests a second per credential (token or key; without one, per client address), in bursts of up to N; more: 429 with Retry-After (10012). Health and readiness are never limited' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l ui-session -d 'Seconds a console sign-in lasts (its session cookie\'s Max-Age), on a server with API keys or a token: 1-604800 (a week), default 8 hours' -r
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l no-worker -d 'Run no background worker: leave it to `payctl worker` or to POST /_payctl/worker'
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l no-webhooks -d 'Deliver no webhooks: leave it to `payctl webhook deliver`'
complete -c payctl -n "__fish_payctl_using_subcommand serve" -s q -l quiet -d 'No access log on stderr'
complete -c payctl -n "__fish_payctl_using_subcommand serve" -l no-ui -d 'Serve no console: /ui/ answers 404 like any path without an endpoint'
complete -c payctl -n "__fish_payctl_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand key; and not __fish_seen_subcommand_from create list revoke help" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand key; and not __fish_seen_subcommand_from create list revoke help" -f -a "create" -d 'Create an API key and print its secret, once'
complete -c payctl -n "__fish_payctl_using_subcommand key; and not __fish_seen_subcommand_from create list revoke help" -f -a "list" -d 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)'
complete -c payctl -n "__fish_payctl_using_subcommand key; and not __fish_seen_subcommand_from create list revoke help" -f -a "revoke" -d 'Revoke a key: every server of the store refuses it from its next request'
complete -c payctl -n "__fish_payctl_using_subcommand key; and not __fish_seen_subcommand_from create list revoke help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from create" -l role -d 'What the key may do: reader, writer or admin (each also what the one before may)' -r -f -a "reader\t'Every GET (and HEAD), the OpenAPI document included'
writer\t'Reader, and every create, update, delete and attach'
admin\t'Writer, and the administration routes /_payctl/* (the worker)'"
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from create" -l expires-in -d 'Days until the key is refused (1-3650) [default: never]' -r
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from revoke" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an API key and print its secret, once'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "revoke" -d 'Revoke a key: every server of the store refuses it from its next request'
complete -c payctl -n "__fish_payctl_using_subcommand key; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand openapi" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand demo" -l keep -d 'Keep the scratch store instead of removing it at the end'
complete -c payctl -n "__fish_payctl_using_subcommand demo" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand generate-docs" -s h -l help -d 'Print help'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "profile" -d 'Customer profiles (/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "address" -d 'Addresses of a customer profile (/customer-profiles/{id}/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "instrument" -d 'Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "program" -d 'Programs, their applications, and attaching customers (/programs)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "template" -d 'Transaction templates and their steps (/applications/{id}/transaction-templates)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "txn" -d 'Transactions, their parameters and steps (/transactions)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "dict" -d 'Dictionaries: the values other requests refer to by number (/dictionaries)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "events" -d 'The event log: what changed, who changed it, when (GET /events; ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "history" -d 'One record\'s events, oldest first: who changed it, when, and what it became (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "webhook" -d 'Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "listen" -d 'Follow the events and POST each, signed, to a local URL (development; ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "worker" -d 'Do the background work: attachments, transaction steps'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "init" -d 'Create a store, with the built-in catalog or your own'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "store" -d 'The store: integrity, migration, snapshots and reset'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "sim" -d 'Outcomes on demand for test suites: rules for the background work (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "config" -d 'Contexts: named stores and services in a config file, picked with --context'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "completions" -d 'Print a static completion script; --help says how to install the dynamic one, which completes ids and names too'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "serve" -d 'Serve the HTTP API over the store (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "key" -d 'API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "openapi" -d 'Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "demo" -d 'Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "generate-docs" -d 'Write completions/ and man/ into DIR (for maintainers)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and not __fish_seen_subcommand_from profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from profile" -f -a "create" -d 'Create a customer profile (POST /customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from profile" -f -a "list" -d 'List customer profiles, oldest first (GET /customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from profile" -f -a "get" -d 'Show one customer profile (GET /customer-profiles/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from profile" -f -a "update" -d 'Change a customer profile; only the fields given change (PUT /customer-profiles/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from profile" -f -a "import" -d 'Create many customer profiles from JSON Lines: one `profile create` body per line (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from address" -f -a "create" -d 'Add an address to a customer profile (POST /customer-profiles/{id}/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from address" -f -a "list" -d 'List the addresses of a customer profile, oldest first (GET …/addresses)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from address" -f -a "get" -d 'Show one address (GET …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from address" -f -a "update" -d 'Change an address; only the fields given change (PUT …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from address" -f -a "delete" -d 'Delete an address (DELETE …/addresses/{address_id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from instrument" -f -a "create" -d 'Add a bank account (POST /customer-profiles/{id}/payment_instruments)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from instrument" -f -a "list" -d 'List a profile\'s payment instruments, oldest first'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from instrument" -f -a "get" -d 'Show one payment instrument'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from instrument" -f -a "update" -d 'Change the label, the change reason or is_default (nothing else can change: 10003)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from program" -f -a "list" -d 'List the Facilitator\'s Programs (GET /programs)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from program" -f -a "applications" -d 'List the Applications of a Program (GET /programs/{id}/applications)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from program" -f -a "attach" -d 'Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from program" -f -a "profiles" -d 'List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from program" -f -a "profile" -d 'Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from template" -f -a "list" -d 'List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from template" -f -a "steps" -d 'List the Steps of a Transaction Template in sequence order (GET /transaction-templates/{id}/transaction-template-steps)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from txn" -f -a "create" -d 'Create a transaction (POST /transactions)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from txn" -f -a "get" -d 'Show one transaction (GET /transactions/{id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from txn" -f -a "list" -d 'List transactions, oldest first (ours)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from txn" -f -a "parameters" -d 'The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from txn" -f -a "steps" -d 'The steps of a transaction, in sequence order; empty until `payctl worker` has run (GET /transactions/{id}/transaction-steps)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from dict" -f -a "list" -d 'List a dictionary\'s values, or without NAME the dictionary names (GET /dictionaries/NAME)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "list" -d 'List events, oldest first (GET /events)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "get" -d 'Show one event (GET /events/{event_id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "tail" -d 'Follow new events, one JSON line each, until interrupted (polls GET /events)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from events" -f -a "resend" -d 'Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "create" -d 'Create a webhook and print its signing secret, once (POST /webhooks)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "list" -d 'List webhooks, oldest first, secrets masked (GET /webhooks)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "get" -d 'Show one webhook, its secret masked (GET /webhooks/{webhook_id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "delete" -d 'Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "deliveries" -d 'List a webhook\'s delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from webhook" -f -a "deliver" -d 'Deliver what is due to every webhook, without a server, then exit (or --watch)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "check" -d 'Check that every file parses and has the current format, that the derived indexes agree with the records, and that the store\'s invariants hold'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "migrate" -d 'Copy this store into an empty one: a directory, or a PostgreSQL database'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "snapshot" -d 'Snapshots of the store\'s records: save, list, restore, delete (for test suites)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from store" -f -a "reset" -d 'Remove every record (profiles, transactions, queue, idempotency keys); keep the catalog, API keys, webhooks and rules'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from sim" -f -a "rule" -d 'Outcome rules of the background work: add, list, delete'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "view" -d 'Show the contexts of the config file, the current one marked (a database-url\'s password is masked; tokens are never in the file)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set-context" -d 'Create a context, or change the keys given of one (the other keys are kept)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "use-context" -d 'Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "delete-context" -d 'Delete a context (when it was the current one, no context is current any more)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "create" -d 'Create an API key and print its secret, once'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "list" -d 'List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)'
complete -c payctl -n "__fish_payctl_using_subcommand help; and __fish_seen_subcommand_from key" -f -a "revoke" -d 'Revoke a key: every server of the store refuses it from its next request'
