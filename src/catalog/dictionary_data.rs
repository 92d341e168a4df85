//! The built-in dictionaries' values as static Rust data: customer types,
//! address types, countries, US states and territories, payment instrument
//! types, payment methods, ACH account types, transfer types, destinations,
//! account codes, cardinality, parameter types and the four status
//! dictionaries. `dictionaries` renders and looks them up.

/// One plain dictionary entry (`<name>_id`, `<name>_name`,
/// `<name>_display_name`, `<name>_description`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub id: u32,
    pub name: &'static str,
    pub display_name: &'static str,
    pub description: &'static str,
}

/// A record of the `countries` dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Country {
    pub id: u32,
    pub name: &'static str,
    pub display_name: &'static str,
    pub two_letter_code: &'static str,
    pub three_letter_code: &'static str,
}

/// A record of the `states` dictionary (states of a country); `short_name` is
/// the USPS code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    pub id: u32,
    pub country_id: u32,
    pub name: &'static str,
    pub short_name: &'static str,
}

/// A record of the `transfer-types` dictionary: a plain entry plus the
/// cardinality, payment method, parameter type and internal marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferType {
    pub entry: Entry,
    pub cardinality_id: u32,
    pub payment_method_id: u32,
    pub parameter_type_id: u32,
    pub is_internal: bool,
}

const fn e(
    id: u32,
    name: &'static str,
    display_name: &'static str,
    description: &'static str,
) -> Entry {
    Entry {
        id,
        name,
        display_name,
        description,
    }
}

const fn st(id: u32, name: &'static str, short_name: &'static str) -> State {
    State {
        id,
        country_id: US,
        name,
        short_name,
    }
}

/// `country_id` of the United States, the only supported country.
const US: u32 = 1;

/// Customer types (spec 2.1).
pub const CUSTOMER_TYPES: &[Entry] = &[
    e(
        1,
        "Individual",
        "Individual",
        "A natural person who is a customer of the Facilitator.",
    ),
    e(
        2,
        "Organization",
        "Organization",
        "A business or other legal entity that is a customer of the Facilitator.",
    ),
    e(
        3,
        "Facilitator",
        "Facilitator",
        "The business party that owns the customers.",
    ),
    e(
        4,
        "CustomersOfProgram",
        "Customers of Program",
        "Any customer attached to the transaction's program.",
    ),
];

/// Address types (spec 2.2).
pub const ADDRESS_TYPES: &[Entry] = &[
    e(
        1,
        "Mailing",
        "Mailing",
        "The address where the customer receives mail.",
    ),
    e(
        2,
        "Street",
        "Street",
        "The physical street address of the customer.",
    ),
    e(
        3,
        "Billing",
        "Billing",
        "The address used for billing the customer.",
    ),
];

/// Countries (spec 2.2): only the United States is supported.
pub const COUNTRIES: &[Country] = &[Country {
    id: US,
    name: "UnitedStates",
    display_name: "United States",
    two_letter_code: "US",
    three_letter_code: "USA",
}];

/// The states of the United States, the District of Columbia and the
/// inhabited territories; ids in alphabetical order of name (stable).
pub const STATES: &[State] = &[
    st(1, "Alabama", "AL"),
    st(2, "Alaska", "AK"),
    st(3, "American Samoa", "AS"),
    st(4, "Arizona", "AZ"),
    st(5, "Arkansas", "AR"),
    st(6, "California", "CA"),
    st(7, "Colorado", "CO"),
    st(8, "Connecticut", "CT"),
    st(9, "Delaware", "DE"),
    st(10, "District of Columbia", "DC"),
    st(11, "Florida", "FL"),
    st(12, "Georgia", "GA"),
    st(13, "Guam", "GU"),
    st(14, "Hawaii", "HI"),
    st(15, "Idaho", "ID"),
    st(16, "Illinois", "IL"),
    st(17, "Indiana", "IN"),
    st(18, "Iowa", "IA"),
    st(19, "Kansas", "KS"),
    st(20, "Kentucky", "KY"),
    st(21, "Louisiana", "LA"),
    st(22, "Maine", "ME"),
    st(23, "Maryland", "MD"),
    st(24, "Massachusetts", "MA"),
    st(25, "Michigan", "MI"),
    st(26, "Minnesota", "MN"),
    st(27, "Mississippi", "MS"),
    st(28, "Missouri", "MO"),
    st(29, "Montana", "MT"),
    st(30, "Nebraska", "NE"),
    st(31, "Nevada", "NV"),
    st(32, "New Hampshire", "NH"),
    st(33, "New Jersey", "NJ"),
    st(34, "New Mexico", "NM"),
    st(35, "New York", "NY"),
    st(36, "North Carolina", "NC"),
    st(37, "North Dakota", "ND"),
    st(38, "Northern Mariana Islands", "MP"),
    st(39, "Ohio", "OH"),
    st(40, "Oklahoma", "OK"),
    st(41, "Oregon", "OR"),
    st(42, "Pennsylvania", "PA"),
    st(43, "Puerto Rico", "PR"),
    st(44, "Rhode Island", "RI"),
    st(45, "South Carolina", "SC"),
    st(46, "South Dakota", "SD"),
    st(47, "Tennessee", "TN"),
    st(48, "Texas", "TX"),
    st(49, "U.S. Virgin Islands", "VI"),
    st(50, "Utah", "UT"),
    st(51, "Vermont", "VT"),
    st(52, "Virginia", "VA"),
    st(53, "Washington", "WA"),
    st(54, "West Virginia", "WV"),
    st(55, "Wisconsin", "WI"),
    st(56, "Wyoming", "WY"),
];

/// Payment instrument types (spec 2.3).
pub const PAYMENT_INSTRUMENT_TYPES: &[Entry] = &[
    e(
        1,
        "Funding",
        "Funding",
        "A bank account from which funds are pulled into the program.",
    ),
    e(
        2,
        "Withdrawal",
        "Withdrawal",
        "A bank account to which funds are paid out of the program.",
    ),
];

/// Payment methods (spec 2.3 and 2.6).
pub const PAYMENT_METHODS: &[Entry] = &[
    e(
        1,
        "ACH",
        "ACH",
        "Electronic bank transfer through the Automated Clearing House network.",
    ),
    e(2, "Check", "Check", "A paper check mailed to the payee."),
];

/// ACH account types (`payment-instrument-ach-types`, spec 2.3).
pub const ACH_TYPES: &[Entry] = &[
    e(1, "Savings", "Savings", "A savings bank account."),
    e(2, "Checking", "Checking", "A checking bank account."),
];

/// Transfer types (spec 2.6, CLI.md "The built-in catalog").
pub const TRANSFER_TYPES: &[TransferType] = &[
    TransferType {
        entry: e(
            1,
            "ACHFunding",
            "ACH Funding",
            "Pulls funds from a customer's bank account into the member account.",
        ),
        cardinality_id: 2,
        payment_method_id: 1,
        parameter_type_id: 1,
        is_internal: false,
    },
    TransferType {
        entry: e(
            2,
            "ACHWithdrawal",
            "ACH Withdrawal",
            "Pays funds from the member account out to a customer's bank account.",
        ),
        cardinality_id: 2,
        payment_method_id: 1,
        parameter_type_id: 1,
        is_internal: false,
    },
    TransferType {
        entry: e(
            3,
            "InternalTransfer",
            "Internal Transfer",
            "Moves funds between customers, or an admin portion to the Facilitator.",
        ),
        cardinality_id: 2,
        payment_method_id: 1,
        parameter_type_id: 1,
        is_internal: true,
    },
    TransferType {
        entry: e(
            4,
            "CheckPayment",
            "Check Payment",
            "Pays a payee from the member account with a mailed paper check.",
        ),
        cardinality_id: 2,
        payment_method_id: 2,
        parameter_type_id: 2,
        is_internal: false,
    },
];

/// Destinations of template steps (spec 2.6).
pub const DESTINATIONS: &[Entry] = &[
    e(
        1,
        "MemberAccount",
        "Member Account",
        "The account a customer holds within the program.",
    ),
    e(
        2,
        "BankAccount",
        "Bank Account",
        "An external bank account reached through a payment instrument.",
    ),
    e(
        3,
        "Customer",
        "Customer",
        "Another customer profile of the Facilitator.",
    ),
    e(
        4,
        "Facilitator",
        "Facilitator",
        "The Facilitator's own account.",
    ),
    e(
        5,
        "CheckRecipient",
        "Check Recipient",
        "A payee who receives a mailed paper check.",
    ),
];

/// Account codes of template steps (spec 2.6).
pub const ACCOUNT_CODES: &[Entry] = &[
    e(
        1,
        "Principal",
        "Principal",
        "The principal amount moved on behalf of a customer.",
    ),
    e(2, "Fee", "Fee", "A fee collected for the Facilitator."),
    e(
        3,
        "Settlement",
        "Settlement",
        "Funds moved to settle balances between the parties.",
    ),
];

/// Cardinality of transfer types: number of transfers within one step.
pub const CARDINALITY: &[Entry] = &[
    e(1, "One", "One", "A single transfer per step."),
    e(2, "Many", "Many", "One transfer per parameter value."),
];

/// Parameter types of transfer types: which fields the input parameters need.
pub const PARAMETER_TYPES: &[Entry] = &[
    e(
        1,
        "Transfer",
        "Transfer",
        "Parameter values name a customer profile and an amount.",
    ),
    e(
        2,
        "Check",
        "Check",
        "Parameter values name a check payee, a US address and an amount.",
    ),
];

/// Statuses of a customer profile in a program (CLI.md "Status values").
pub const CUSTOMER_PROFILE_PROGRAM_STATUSES: &[Entry] = &[
    e(
        1,
        "Pending",
        "Pending",
        "Attach requested; the worker has not processed it yet.",
    ),
    e(
        10,
        "Attached",
        "Attached",
        "The customer profile is attached to the program.",
    ),
    e(
        20,
        "Rejected",
        "Rejected",
        "The worker refused the attachment; the reason says why.",
    ),
];

/// Statuses of a payment instrument (CLI.md "Status values").
pub const PAYMENT_INSTRUMENT_STATUSES: &[Entry] = &[e(
    40,
    "Active",
    "Active",
    "The payment instrument can be used.",
)];

/// Statuses of a transaction (CLI.md "Status values").
pub const TRANSACTION_STATUSES: &[Entry] = &[
    e(
        10,
        "Created",
        "Created",
        "The transaction exists; its steps are not generated yet.",
    ),
    e(
        20,
        "Processing",
        "Processing",
        "Steps are generated and not all of them have finished.",
    ),
    e(
        60,
        "Completed",
        "Completed",
        "Every step of the transaction completed.",
    ),
    e(
        70,
        "Failed",
        "Failed",
        "A step failed and the later steps were cancelled.",
    ),
];

/// Statuses of a transaction step (CLI.md "Status values").
pub const TRANSACTION_STEP_STATUSES: &[Entry] = &[
    e(10, "Pending", "Pending", "The step has not run yet."),
    e(
        60,
        "Completed",
        "Completed",
        "The step completed successfully.",
    ),
    e(
        70,
        "Failed",
        "Failed",
        "The step failed; the reason says why.",
    ),
    e(
        80,
        "Cancelled",
        "Cancelled",
        "The step was not run because an earlier step failed.",
    ),
];
