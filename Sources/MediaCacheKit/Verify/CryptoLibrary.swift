import CCrypto

/// libcrypto's life in the process.
public enum CryptoLibrary {
    /// OpenSSL frees its state in an exit handler of its own, under threads that may still
    /// hash (a list read ahead, a file checked): a run that exited just then crashed in
    /// them. Called first thing, before any use of libcrypto (curl's included), so that
    /// handler is never registered; the process's memory goes with it anyway.
    public static func keepUntilExit() {
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
