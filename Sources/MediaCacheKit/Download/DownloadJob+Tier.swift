/// Reading a file from the fleet's tier instead of its origin (`--tier`, `pull`).
///
/// The key's record is looked up off the transfer thread. A record found means its
/// object is fetched in ranges like any origin's file (signed requests, no `-H` headers,
/// cookies or netrc), resumably (the saved state names the record), and committed only
/// if its SHA-256 is the record's. A copy that fails, or a tier that stops answering,
/// hands the file to the origin with a notice, unless nothing else may be used.
extension DownloadJob {
    /// The source of the bytes: the tier's copy, if it has one, else the origin.
    func chooseSource() {
        loop.assertOnLoop()
        guard let tier = service.tier, !tierDeclined else {
            if state.tier != nil {
                startOverFromOrigin(notice: "its partial data came from the tier, which this run does not read; starting it again from the origin")
            } else {
                startProbe()
            }
            return
        }
        phase = .lookingUpTier
        let key = key
        service.tierLookups.async { [weak self] in
            let answer = tier.lookUp(key)
            self?.loop.post { [weak self] in self?.didLookUp(answer, in: tier) }
        }
    }

    private func didLookUp(_ answer: TierSource.Lookup, in tier: TierSource) {
        loop.assertOnLoop()
        // Stopped (Ctrl-C) while the tier was asked.
        guard case .lookingUpTier = phase else { return }
        switch answer {
        case .found(let record):
            if state.entry.checksum != nil && record.faststart == .relocated {
                // Relocated bytes cannot be checked against the origin's checksum.
                return declineTier(
                    "the tier's copy is faststart-relocated, so the list's checksum= cannot check it", in: tier)
            }
            if state.tier?.sha256 != record.sha256 || state.tier?.size != record.size {
                // Bytes held from the origin keep going there; those of another tier copy go.
                if state.tier == nil && !state.completed.isEmpty { return declineTier(nil, in: tier) }
                state.discardData()
            }
            state.tier = record
            startProbe()
        case .notFound:
            declineTier(tier.fallback == .none ? "the tier has no copy of it" : nil, in: tier)
        case .unusableRecord(let reason):
            declineTier("the tier's record for it cannot be used (\(reason))", in: tier)
        case .tierUnusable(let error):
            if tier.fallback != .origin(required: false) {
                fail(JobFailure(.tier, "the tier cannot be used: \(error)"), keepPartial: true)
                return
            }
            // Said once for the run by the tier source; a file half-read from it says why
            // it starts again.
            declineTier(state.tier == nil ? nil : "the tier cannot be used", in: tier)
        }
    }

    /// The tier will not give this file: the origin will (`reason` is said as a notice,
    /// when there is one), unless nothing else may be used.
    private func declineTier(_ reason: String?, in tier: TierSource) {
        if tier.fallback == .none {
            fail(JobFailure(.tier, reason ?? "the tier cannot give it"), keepPartial: false)
            return
        }
        tierDeclined = true
        if state.tier != nil {
            startOverFromOrigin(notice: (reason ?? "the tier no longer has its copy") + "; starting it again from the origin")
            return
        }
        if let reason { emit(.notice(url: url, message: reason + "; fetching it from the origin")) }
        startProbe()
    }

    /// The tier's copy failed while it was fetched or checked (`reason`): the origin gives
    /// the file instead, from its first byte. True when the job goes on that way; false
    /// when nothing else may be used, and the job failed.
    @discardableResult
    func tierCopyFailed(_ reason: String) -> Bool {
        loop.assertOnLoop()
        guard let record = state.tier, let tier = service.tier else { return false }
        let message = "the tier's copy \(tier.objectName(for: record)): \(reason)"
        guard tier.fallback != .none else {
            cancelAllTransfers()
            fail(JobFailure(.tier, message), keepPartial: false)
            return false
        }
        tierDeclined = true
        startOverFromOrigin(notice: message + "; fetching it from the origin")
        return true
    }

    /// The store gave no answer to a transfer: the tier is not asked again in this run,
    /// and this file goes to the origin, unless the tier is required (`--tier-required`,
    /// `pull`).
    func tierStoppedAnswering(_ reason: String) {
        guard let tier = service.tier else { return }
        let error = TierError.unreachable(endpoint: tier.store.client.configuration.endpoint, reason: reason)
        tier.markUnusable(error)
        if tier.fallback == .origin(required: false) {
            // The run's warning says why.
            tierCopyFailed("the store stopped answering")
        } else {
            cancelAllTransfers()
            fail(JobFailure(.tier, "the tier cannot be used: \(error)"), keepPartial: true)
        }
    }

    /// Drops everything held (bytes of the tier's layout, which the origin's may not
    /// share) and fetches the file from the origin.
    private func startOverFromOrigin(notice: String) {
        cancelAllTransfers()
        emit(.notice(url: url, message: notice))
        if case .committing = phase { service.jobFetchesAgain(self) }
        // Readers of the tier's bytes stop where they are: what follows is another layout.
        download.held.startOver()
        partial.remove()
        state = JobState(entry: request.entry, commandHeaders: request.commandHeaders)
        failuresInARow = 0
        retryNotBefore = 0
        startedEventSent = false
        guard partial.openUnnamed(spares: nil) else {
            fail(JobFailure(.io, "cannot make a data file in \(cache.partialDirectory)"), keepPartial: false)
            return
        }
        startProbe()
    }

    /// The request for the tier's copy, when the bytes come from there: its URL and how
    /// to sign. Nil while they come from the origin.
    var tierObjectRequest: (url: String, signing: S3Signing, verifyTLS: Bool)? {
        guard let record = state.tier, let tier = service.tier else { return nil }
        let (url, signing) = tier.objectRequest(for: record)
        return (url, signing, tier.store.client.configuration.verifyTLS)
    }
}
