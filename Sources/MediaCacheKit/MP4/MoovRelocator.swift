/// Writes the faststart layout of a file: header boxes, patched moov, then mdat and the
/// rest, copied in the kernel (`copy_file_range`), never through user space.
public enum MoovRelocator {
    public static func write(_ plan: RelocationPlan, from source: DataFile, to destination: DataFile) throws {
        try destination.truncate(length: 0)
        try destination.preallocate(length: plan.length + plan.shift - (plan.moovEnd - plan.moovOffset))
        var out: Int64 = 0
        try source.copy(ByteRange(0, plan.mediaStart), to: destination, at: out)
        out += plan.mediaStart
        try destination.write(plan.newMoov, at: out)
        out += plan.shift
        try source.copy(ByteRange(plan.mediaStart, plan.moovOffset), to: destination, at: out)
        out += plan.moovOffset - plan.mediaStart
        try source.copy(ByteRange(plan.moovEnd, plan.length), to: destination, at: out)
        try destination.syncData()
    }
}
