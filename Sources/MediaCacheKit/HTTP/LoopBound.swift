/// A value that only the transfer loop's thread may read or change, as swift-nio's
/// `NIOLoopBound`: it may be held and passed anywhere, but every access checks the
/// thread, in release builds too, so confinement is enforced rather than documented.
struct LoopBound<Value>: Sendable {
    // @unchecked: the value is reached only through `value`, which checks the thread.
    private final class Box: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    let loop: TransferLoop
    private let box: Box

    /// Made on any thread; reached only on `loop`'s.
    init(_ value: Value, loop: TransferLoop) {
        self.loop = loop
        box = Box(value)
    }

    var value: Value {
        get {
            loop.preconditionOnLoop()
            return box.value
        }
        nonmutating _modify {
            loop.preconditionOnLoop()
            yield &box.value
        }
        nonmutating set {
            loop.preconditionOnLoop()
            box.value = newValue
        }
    }
}
