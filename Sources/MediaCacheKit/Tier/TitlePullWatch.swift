/// What a title's pull from the tier tells, and asks, whoever runs it; called on the
/// pull's own thread (never the transfer thread), so each must be quick.
struct TitlePullWatch {
    /// Asked before every read: true stops the pull with `.cancelled`.
    var isCancelled: () -> Bool = { false }
    /// Once, before any read: how many bytes of the pack an earlier pull left that pass
    /// their checks (0 for none).
    var resuming: (Int64) -> Void = { _ in }
    /// Once `title.json` is known and checked: the title's files will be written into
    /// `folder`; `held` are there already, checked.
    var planned: (_ manifest: TitleManifest, _ folder: String, _ held: [TitleManifest.Member]) -> Void = { _, _, _ in }
    /// What is written of a member as it arrives, before it is whole and checked.
    var arriving: (_ path: String, _ note: TitleInProgress.ArrivalNote) -> Void = { _, _ in }
    /// After each member is written and checked.
    var held: (TitleManifest.Member) -> Void = { _ in }
    /// After each read: how many bytes of the pack are held.
    var received: (Int64) -> Void = { _ in }
    /// The files players wait for, oldest first; each is read before anything else.
    var asked: () -> [String] = { [] }
    /// Whether a player waits on the title (`serve`): what every player reads first, its
    /// playlists and keys, is read first.
    var forPlayers = false
}
