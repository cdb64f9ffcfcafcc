/// Which source a job reads, and the one place where a failed source hands over to the
/// next: a mirror, or the origin after the tier's copy.
///
/// With `--tier` (or `pull`) the key's record is looked up first, a small GET on the
/// transfer loop beside the downloads (one HTTP stack, shared connections): a record
/// found makes the tier's copy the source (the saved state names the record, so a
/// resume reads the same copy; a title's pack is pulled whole instead, see `pullTitle`);
/// none, or one that cannot be used, leaves the origin, unless nothing else may be used.
extension DownloadJob {
    /// The tier's copy, if the run reads a tier and it has one; else the origin.
    func chooseSource() {
        loop.preconditionOnLoop()
        guard let tier = service.tier else {
            if state.tier != nil {
                switchSource(
                    to: listedOrigin, keepsHeldBytes: false,
                    notice: "its partial data came from the tier, which this run does not read; starting it again from the origin")
            } else {
                startProbe()
            }
            return
        }
        phase = .lookingUpTier
        tier.lookUp(key, on: loop) { [weak self] answer in self?.didLookUp(answer, in: tier) }
    }

    /// The origin as the list gives it (its first URL).
    private var listedOrigin: OriginSource {
        OriginSource(entry: request.entry, commandHeaders: request.commandHeaders)
    }

    private func didLookUp(_ answer: TierSource.Lookup, in tier: TierSource) {
        loop.preconditionOnLoop()
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
            source = TierCopySource(record: record, tier: tier, origin: listedOrigin)
            startProbe()
        case .title(let record):
            pullTitle(record, from: tier)
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
    func declineTier(_ reason: String?, in tier: TierSource) {
        if tier.fallback == .none {
            fail(JobFailure(.tier, reason ?? "the tier cannot give it"), keepPartial: false)
            return
        }
        if state.tier != nil {
            switchSource(
                to: listedOrigin, keepsHeldBytes: false,
                notice: (reason ?? "the tier no longer has its copy") + "; starting it again from the origin")
            return
        }
        if let reason { emit(.notice(url: url, message: reason + "; fetching it from the origin")) }
        startProbe()
    }

    /// The source in use failed (`trouble`): what it names takes over, or the job ends
    /// for the source's own reason. False: no source is left, and the caller's failure
    /// stands.
    func tryNextSource(after trouble: SourceTrouble) -> Bool {
        loop.preconditionOnLoop()
        switch source.fallback(after: trouble) {
        case .exhausted:
            return false
        case .fail(let failure, let keepPartial):
            fail(failure, keepPartial: keepPartial)
        case .next(let next, let keepsHeldBytes, let notice):
            switchSource(to: next, keepsHeldBytes: keepsHeldBytes, notice: notice)
        }
        return true
    }

    /// Reads from `next` from now on, with a fresh retry budget. Held bytes stay when
    /// `keepsHeldBytes` (the probe checks the new source's validators, as on any
    /// resume); else everything held goes (a tier copy's layout may not be the
    /// origin's) and the file starts again, even from the middle of its commit.
    private func switchSource(to next: any Source, keepsHeldBytes: Bool, notice: String) {
        cancelAllTransfers()
        emit(.notice(url: url, message: notice))
        source = next
        failuresInARow = 0
        if keepsHeldBytes {
            state.finalURL = nil
        } else {
            if case .committing = phase { service.jobFetchesAgain(self) }
            // Readers of the old bytes stop where they are: what follows is another layout.
            download.held.startOver()
            partial.remove()
            state = JobState(entry: request.entry, commandHeaders: request.commandHeaders)
            guard partial.openUnnamed(spares: nil) else {
                fail(JobFailure(.io, "cannot make a data file in \(cache.partialDirectory)"), keepPartial: false)
                return
            }
        }
        startProbe()
    }
}
