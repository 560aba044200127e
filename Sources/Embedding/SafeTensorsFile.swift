import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A memory-mapped `.safetensors` file: an 8-byte little-endian header length, a JSON header
/// naming each tensor's dtype, shape and byte range, then the raw tensor data.
public final class SafeTensorsFile: @unchecked Sendable {
    /// One tensor's entry in the header.
    public struct TensorInfo: Sendable, Equatable {
        public var dtype: String
        public var shape: [Int]
        /// Byte range relative to the start of the data section.
        public var dataOffsets: Range<Int>
        public var elementCount: Int { shape.reduce(1, *) }
    }

    public let path: String
    /// Tensors by name; `__metadata__` is left out.
    public let tensors: [String: TensorInfo]
    /// The `__metadata__` entry, if any.
    public let metadata: [String: String]

    private let mapping: UnsafeMutableRawPointer
    private let mappingLength: Int
    private let dataStart: Int

    /// Maps the file read-only and parses its header. The file stays mapped while this object lives.
    public init(url: URL) throws {
        path = url.path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw EmbeddingError.unreadableModelFile(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw EmbeddingError.unreadableModelFile(path: path, reason: String(cString: strerror(errno)))
        }
        let length = Int(info.st_size)
        guard length >= 8 else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "\(length) bytes is too short for a safetensors file")
        }
        guard let base = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            throw EmbeddingError.unreadableModelFile(path: path, reason: "mmap failed: \(String(cString: strerror(errno)))")
        }
        do {
            let parsed = try Self.parseHeader(UnsafeRawBufferPointer(start: base, count: length), path: path)
            tensors = parsed.tensors
            metadata = parsed.metadata
            dataStart = parsed.dataStart
        } catch {
            munmap(base, length)
            throw error
        }
        mapping = base
        mappingLength = length
    }

    deinit {
        munmap(mapping, mappingLength)
    }

    /// Lets the kernel drop the pages read so far from this process (they stay in its file cache
    /// and come back on the next read): for weights now used from another copy.
    public func releaseResidentPages() {
        _ = madvise(mapping, mappingLength, MADV_DONTNEED)
    }

    /// The raw bytes of a tensor, valid while this object lives.
    public func bytes(of name: String) throws -> UnsafeRawBufferPointer {
        guard let info = tensors[name] else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "it has no tensor named \(name)")
        }
        return UnsafeRawBufferPointer(start: mapping + dataStart + info.dataOffsets.lowerBound, count: info.dataOffsets.count)
    }

    /// A tensor as float32 values, converted from F16 or BF16 when stored that way. When `shape`
    /// is given, the tensor must have exactly that shape.
    public func floats(_ name: String, shape expected: [Int]? = nil) throws -> [Float] {
        guard let info = tensors[name] else {
            throw EmbeddingError.invalidModelFile(path: path, reason: "it has no tensor named \(name)")
        }
        if let expected, expected != info.shape {
            throw EmbeddingError.invalidModelFile(
                path: path, reason: "tensor \(name) has shape \(info.shape), expected \(expected)")
        }
        let raw = try bytes(of: name)
        let count = info.elementCount
        switch info.dtype {
        case "F32":
            return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                _ = memcpy(buffer.baseAddress!, raw.baseAddress!, count * 4)
                initialized = count
            }
        case "F16":
            return (0..<count).map { index in
                Self.floatFromHalf(raw.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self).littleEndian)
            }
        case "BF16":
            return (0..<count).map { index in
                Float(bitPattern: UInt32(raw.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self).littleEndian) << 16)
            }
        default:
            throw EmbeddingError.invalidModelFile(
                path: path, reason: "tensor \(name) has dtype \(info.dtype); only F32, F16 and BF16 are supported")
        }
    }

    /// Parses the header of a safetensors file held in `buffer`.
    static func parseHeader(_ buffer: UnsafeRawBufferPointer, path: String) throws
        -> (tensors: [String: TensorInfo], metadata: [String: String], dataStart: Int)
    {
        func invalid(_ reason: String) -> EmbeddingError { .invalidModelFile(path: path, reason: reason) }
        guard buffer.count >= 8 else { throw invalid("too short for a safetensors file") }
        let headerLength = UInt64(littleEndian: buffer.loadUnaligned(as: UInt64.self))
        guard headerLength <= UInt64(buffer.count - 8) else {
            throw invalid("the header length \(headerLength) exceeds the file size \(buffer.count)")
        }
        let dataStart = 8 + Int(headerLength)
        let headerData = Data(buffer[8..<dataStart])
        guard let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any] else {
            throw invalid("the header is not a JSON object")
        }
        let dataLength = buffer.count - dataStart
        var tensors: [String: TensorInfo] = [:]
        var metadata: [String: String] = [:]
        for (name, value) in header {
            if name == "__metadata__" {
                for (key, item) in value as? [String: Any] ?? [:] {
                    metadata[key] = item as? String ?? "\(item)"
                }
                continue
            }
            guard let entry = value as? [String: Any],
                  let dtype = entry["dtype"] as? String,
                  let shapeValues = entry["shape"] as? [NSNumber],
                  let offsetValues = entry["data_offsets"] as? [NSNumber], offsetValues.count == 2
            else { throw invalid("the header entry for \(name) lacks dtype, shape or data_offsets") }
            let shape = shapeValues.map(\.intValue)
            let start = offsetValues[0].intValue
            let end = offsetValues[1].intValue
            guard start >= 0, start <= end, end <= dataLength else {
                throw invalid("tensor \(name) has data offsets \(start)..<\(end) outside the \(dataLength) data bytes")
            }
            if let width = Self.elementWidth(dtype), shape.allSatisfy({ $0 >= 0 }),
               shape.reduce(1, *) * width != end - start {
                throw invalid("tensor \(name) has \(end - start) bytes, which does not fit shape \(shape) of \(dtype)")
            }
            tensors[name] = TensorInfo(dtype: dtype, shape: shape, dataOffsets: start..<end)
        }
        return (tensors, metadata, dataStart)
    }

    /// IEEE 754 half precision to single precision (Float16 is unavailable on some targets).
    static func floatFromHalf(_ bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = Int(bits >> 10) & 0x1F
        let mantissa = UInt32(bits & 0x03FF)
        if exponent == 0 {
            // zero or subnormal: mantissa × 2^-24
            let magnitude = Float(mantissa) * Float(sign: .plus, exponent: -24, significand: 1)
            return sign == 0 ? magnitude : -magnitude
        }
        if exponent == 0x1F {
            return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13))
        }
        return Float(bitPattern: sign | (UInt32(exponent + 112) << 23) | (mantissa << 13))
    }

    static func elementWidth(_ dtype: String) -> Int? {
        switch dtype {
        case "F64", "I64", "U64": return 8
        case "F32", "I32", "U32": return 4
        case "F16", "BF16", "I16", "U16": return 2
        case "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2": return 1
        default: return nil
        }
    }
}
