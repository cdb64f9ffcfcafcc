/// The one place where the store's errors become a download's failure codes.
extension JobFailure {
    init(_ error: CommitError) {
        let code: Code =
            switch error {
            case .checksumMismatch: .checksumMismatch
            case .incomplete: .badResponse
            case .tierCopyDiffers: .tier
            case .shortDataFile, .cache, .unexpected: .io
            }
        self.init(code, error.description, cause: .commit(error.kind))
    }

    /// A publication that failed: the cache's files or index.
    init(_ error: CacheError) {
        self.init(.io, error.description)
    }
}
