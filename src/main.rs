fn main() {
    std::process::exit(payctl::cli::main());
}
