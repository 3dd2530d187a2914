// Writes Sources/Geocoding/Resources/hant-hans.tsv: every CJK ideograph that ICU's
// "Traditional-Simplified" transform changes, with its simplified form (one character for
// one character). The table is ICU data (Unicode License v3); the geocoder's key folding
// (Normalizer.swift and Scripts/build-gazetteer.py) reads it, so that a query in either
// script finds names stored in the other.
//
// Usage: swiftc -O Scripts/build-hant-hans.swift -o /tmp/hant-hans && /tmp/hant-hans > Sources/Geocoding/Resources/hant-hans.tsv
import Foundation

var chars: [Unicode.Scalar] = []
for r in [0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x2A6DF] as [ClosedRange<UInt32>] {
    for v in r { if let s = Unicode.Scalar(v) { chars.append(s) } }
}
var input = ""
for c in chars {
    input.unicodeScalars.append(c)
    input += "\n"
}
let t0 = Date()
let out = input.applyingTransform(StringTransform(rawValue: "Traditional-Simplified"), reverse: false)!
FileHandle.standardError.write("transform \(Date().timeIntervalSince(t0)) s\n".data(using: .utf8)!)
let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
precondition(lines.count == chars.count + 1, "\(lines.count) vs \(chars.count)")
var n = 0
var multi = 0
for (c, l) in zip(chars, lines) {
    let s = String(c)
    if l != s {
        if l.unicodeScalars.count != 1 {
            multi += 1
            continue
        }
        print("\(s)\t\(l)")
        n += 1
    }
}
FileHandle.standardError.write("\(n) mapped, \(multi) multi\n".data(using: .utf8)!)
