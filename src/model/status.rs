//! Status values (CLI.md "Status values").

pub mod attachment {
    pub const PENDING: u32 = 1;
    pub const ATTACHED: u32 = 10;
    pub const REJECTED: u32 = 20;
}

pub mod instrument {
    pub const ACTIVE: u32 = 40;
}

pub mod txn {
    pub const CREATED: u32 = 10;
    pub const PROCESSING: u32 = 20;
    pub const COMPLETED: u32 = 60;
    pub const FAILED: u32 = 70;
}

pub mod step {
    pub const PENDING: u32 = 10;
    pub const COMPLETED: u32 = 60;
    pub const FAILED: u32 = 70;
    pub const CANCELLED: u32 = 80;
    pub const COMPLETED_REASON: &str = "Successfully completed.";
}

/// The worker's actor name.
pub const SYSTEM: &str = "SYSTEM";
