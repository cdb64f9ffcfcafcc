import Testing
@testable import MediaCacheKit

@Suite struct CacheLocationTests {
    func root(_ explicit: String?, _ environment: [String: String]) -> String? {
        try? CacheLocation.resolve(explicit: explicit, environment: environment, currentDirectory: "/work").get().root
    }

    @Test func precedence() {
        let env = ["MEDIACACHE_DIR": "/env/dir", "XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"]
        #expect(root("/flag/dir", env) == "/flag/dir")
        #expect(root("relative", env) == "/work/relative")
        #expect(root(nil, env) == "/env/dir")
        #expect(root(nil, ["XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"]) == "/xdg/mediacache")
        #expect(root(nil, ["HOME": "/home/u"]) == "/home/u/.cache/mediacache")
    }

    /// Empty variables count as unset; a relative XDG_CACHE_HOME is ignored (XDG spec).
    @Test func emptyVariablesAreUnset() {
        #expect(root("", ["MEDIACACHE_DIR": "", "XDG_CACHE_HOME": "", "HOME": "/home/u"]) == "/home/u/.cache/mediacache")
        #expect(root(nil, ["XDG_CACHE_HOME": "rel", "HOME": "/home/u"]) == "/home/u/.cache/mediacache")
    }

    /// Never `/.cache/mediacache`: without a usable HOME there is no default.
    @Test(arguments: [["HOME": ""], [:], ["HOME": "relative"], ["HOME": "", "XDG_CACHE_HOME": "", "MEDIACACHE_DIR": ""]])
    func noUsableHomeIsAProblem(environment: [String: String]) {
        let result = CacheLocation.resolve(explicit: nil, environment: environment, currentDirectory: "/work")
        #expect(throws: CacheLocation.Problem.noHome) { try result.get() }
        #expect(root("/given", environment) == "/given")
    }
}
