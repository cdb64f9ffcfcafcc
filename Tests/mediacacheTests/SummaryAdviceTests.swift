import MediaCacheKit
import Testing

@testable import mediacache

/// What the run's last line tells a user to do about its failures.
@Suite("Summary advice")
struct SummaryAdviceTests {
    static func failure(_ code: JobFailure.Code, _ cause: JobFailure.Cause, kept: Bool) -> JobFailure {
        var failure = JobFailure(code, "x", cause: cause)
        failure.keptForResume = kept
        return failure
    }

    @Test func aFullDiskIsMendedOnTheMachineNotInTheList() {
        let disk = Self.failure(.io, .storage, kept: false)
        let gone = Self.failure(.httpStatus, .status(404), kept: false)
        let advice = SummaryPrinter.nextStep(after: [disk])
        #expect(advice?.hasPrefix("not kept for resume: free space on the disk") == true, "\(advice ?? "")")
        #expect(SummaryPrinter.nextStep(after: [gone])?.hasPrefix("not kept for resume: fix the URL or the options and") == true)
        #expect(SummaryPrinter.nextStep(after: [disk, gone])?.contains("(for a disk failure, the disk)") == true)
        #expect(SummaryPrinter.nextStep(after: []) == nil)
    }
}
