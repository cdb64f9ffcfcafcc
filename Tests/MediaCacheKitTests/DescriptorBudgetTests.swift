import Testing
@testable import MediaCacheKit

/// Sizing a run to the open-file limit: what fits is kept, what does not shrinks, and
/// the warning says by how much.
@Suite("DescriptorBudget")
struct DescriptorBudgetTests {
    @Test func aRoomyLimitChangesNothing() {
        let budget = DescriptorBudget(limit: 1 << 20, inUse: 20, jobs: 16, connectionsPerFile: 16, maxConnections: 64)
        #expect(budget.jobs == 16 && budget.connectionsPerFile == 16)
        #expect(budget.spareFiles == 8 && budget.maxConnections == 64)
        #expect(!budget.isReduced && budget.warning(limit: 1 << 20) == nil)
    }

    @Test(arguments: [64, 100, 256, 1024])
    func everythingFitsUnderTheLimit(limit: Int) {
        let budget = DescriptorBudget(limit: limit, inUse: 20, jobs: 16, connectionsPerFile: 16, maxConnections: 64)
        let used = 20 + DescriptorBudget.headroom + budget.spareFiles
            + budget.jobs * (DescriptorBudget.perFile + max(budget.connectionsPerFile, 0))
        #expect(used <= limit, "\(budget)")
        #expect(budget.maxConnections <= budget.jobs * budget.connectionsPerFile || !budget.isReduced)
        #expect(budget.jobs >= 1 && budget.connectionsPerFile >= 1)
    }

    @Test func connectionsShrinkBeforeFilesThenBothInTurn() {
        // 64 - 20 in use - 16 headroom = 28 free: 16 x 16 becomes 4 files over 3 connections.
        let budget = DescriptorBudget(limit: 64, inUse: 20, jobs: 16, connectionsPerFile: 16, maxConnections: 64)
        #expect((budget.jobs, budget.connectionsPerFile) == (4, 3), "\(budget)")
        #expect(budget.maxConnections == 12)
        #expect(
            budget.warning(limit: 64)
                == "the open-file limit (64) fits 4 files at once over 3 connections each, not -j 16 -x 16; raise it (ulimit -n) for more")
        // Few files, many connections: only connections shrink.
        let wide = DescriptorBudget(limit: 64, inUse: 20, jobs: 1, connectionsPerFile: 32, maxConnections: 64)
        #expect((wide.jobs, wide.connectionsPerFile) == (1, 24), "\(wide)")
    }

    /// Commits behind (slots freed when the bytes are written) hold files of their own:
    /// they get only what is left, and none when nothing is.
    @Test(arguments: [64, 100, 256, 1024, 1 << 20])
    func commitsBehindFitUnderTheLimit(limit: Int) {
        let budget = DescriptorBudget(limit: limit, inUse: 20, jobs: 16, connectionsPerFile: 16, maxConnections: 64)
        let used = 20 + DescriptorBudget.headroom + budget.spareFiles
            + (budget.jobs + budget.commitsBehind) * DescriptorBudget.perFile + budget.jobs * budget.connectionsPerFile
        #expect(used <= limit, "\(budget)")
        if limit >= 1024 { #expect(budget.commitsBehind >= budget.jobs, "\(budget)") }
        let none = DescriptorBudget(limit: 30, inUse: 20, jobs: 4, connectionsPerFile: 8, maxConnections: 64)
        #expect(none.commitsBehind == 0)
    }

    /// A title's resources each hold a socket and a file: as many as asked where there is
    /// room, fewer under a tight limit, never none.
    @Test(arguments: [30, 64, 100, 256, 1024, 1 << 20])
    func titleResourcesFitUnderTheLimit(limit: Int) {
        let budget = DescriptorBudget(
            limit: limit, inUse: 20, jobs: 4, connectionsPerFile: 8, resourcesPerTitle: 16, maxConnections: 64)
        #expect(budget.resourcesPerTitle >= 1 && budget.resourcesPerTitle <= 16, "\(budget)")
        if limit >= 256 { #expect(budget.resourcesPerTitle == 16, "\(budget)") }
        guard limit > 30 else { return }
        let used = 20 + DescriptorBudget.headroom + budget.spareFiles
            + budget.jobs * (DescriptorBudget.perFile + 2 * budget.resourcesPerTitle)
        #expect(used <= limit, "\(budget)")
    }

    @Test func noRoomAtAllStillRunsOneFileOverOneConnection() {
        let budget = DescriptorBudget(limit: 30, inUse: 20, jobs: 4, connectionsPerFile: 8, maxConnections: 64)
        #expect((budget.jobs, budget.connectionsPerFile, budget.spareFiles) == (1, 1, 0))
    }
}
