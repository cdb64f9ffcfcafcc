import Testing
@testable import MediaCacheKit

@Suite("Validators")
struct ValidatorsTests {
    @Test func sameETagIsNoConflict() {
        let a = Validators(etag: "\"v1\"", lastModified: nil, length: 100)
        #expect(!a.conflicts(with: Validators(etag: "\"v1\"", lastModified: nil, length: 100)))
    }

    @Test func differentETagIsAConflict() {
        let a = Validators(etag: "\"v1\"", length: 100)
        #expect(a.conflicts(with: Validators(etag: "\"v2\"", length: 100)))
    }

    @Test func differentLengthIsAConflict() {
        let a = Validators(etag: "\"v1\"", length: 100)
        #expect(a.conflicts(with: Validators(etag: "\"v1\"", length: 101)))
        #expect(Validators(length: 100).conflicts(with: Validators(length: 200)))
    }

    @Test func differentLastModifiedIsAConflict() {
        let a = Validators(lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", length: 100)
        #expect(a.conflicts(with: Validators(lastModified: "Thu, 22 Oct 2015 07:28:00 GMT", length: 100)))
    }

    @Test func missingETagOnEitherSideIsNoConflict() {
        let full = Validators(etag: "\"v1\"", lastModified: nil, length: 100)
        let bare = Validators(etag: nil, lastModified: nil, length: 100)
        #expect(!full.conflicts(with: bare))
        #expect(!bare.conflicts(with: full))
    }

    @Test func missingLengthIsNoConflict() {
        let a = Validators(etag: "\"v1\"", length: 100)
        #expect(!a.conflicts(with: Validators(etag: "\"v1\"", length: nil)))
    }

    @Test func nothingKnownIsNoConflict() {
        #expect(!Validators().conflicts(with: Validators()))
    }

    @Test func strongETagIsTheIfRangeValue() {
        let v = Validators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(v.ifRangeValue == "\"v1\"")
        #expect(v.strongETag == "\"v1\"")
        #expect(v.canIdentifyVersion)
    }

    @Test func weakETagIsNeverTheIfRangeValue() {
        let weakOnly = Validators(etag: "W/\"v1\"")
        #expect(weakOnly.strongETag == nil)
        #expect(weakOnly.ifRangeValue == nil)
        #expect(!weakOnly.canIdentifyVersion)

        let weakWithDate = Validators(etag: "W/\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(weakWithDate.ifRangeValue == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(weakWithDate.canIdentifyVersion)
    }

    @Test func lastModifiedAloneIsTheIfRangeValue() {
        let v = Validators(lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", length: 5)
        #expect(v.ifRangeValue == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test func noValidatorsCannotIdentifyVersion() {
        #expect(!Validators(length: 100).canIdentifyVersion)
        #expect(Validators(length: 100).ifRangeValue == nil)
    }
}
