//! Rewriting a model's root to add a metadata entry, keeping every original byte.
//!
//! **How the file is written (re-rooting).** Flatbuffer offsets only point forward, so the
//! original file is kept byte for byte and a new root is *prepended*: the new file is a header
//! (root offset and `TFL3`), a new `Model` table whose fields point into the original bytes,
//! a new `buffers` vector (the original buffers plus one holding the entry's data), a new
//! `metadata` vector (the original entries, minus an existing one of the same name, plus the
//! new one), padded to a multiple of 16 bytes, then the original file. Every offset inside the
//! original bytes stays valid (source and target moved together), constant data keeps its
//! 16-byte alignment, and fields this crate's schema does not read survive untouched. A
//! replaced entry's buffer stays in the file, unreferenced.
//!
//! Refused, with a reason: models whose `Model` table has fields this version does not know
//! (their type, offset or scalar, is unknown, so they cannot be pointed at safely) and models
//! with data stored after the flatbuffer (`Buffer.offset`, which counts from the file start
//! and would move).

use super::model::{MAX_MODEL_BYTES, Model};

/// Model table fields this version knows, by id: `true` for offsets (tables, vectors, strings),
/// `false` for the one scalar (`version`, a `uint`).
const MODEL_FIELDS: [bool; 10] = [false, true, true, true, true, true, true, true, true, true];
const FIELD_BUFFERS: usize = 4;
const FIELD_METADATA: usize = 6;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(at)?,
        *b.get(at + 1)?,
        *b.get(at + 2)?,
        *b.get(at + 3)?,
    ]))
}

fn deref(b: &[u8], at: usize) -> Option<usize> {
    at.checked_add(u32_at(b, at)? as usize)
}

/// The fields of a table: `(id, position of the field)` for each present field, and the
/// number of field slots its vtable has.
fn table_fields(b: &[u8], table: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let soffset = i64::from(u32_at(b, table)? as i32);
    let vtable = usize::try_from(i64::try_from(table).ok()? - soffset).ok()?;
    let vt_len = usize::from(u16_at(b, vtable)?);
    let slots = vt_len.checked_sub(4)? / 2;
    let mut fields = Vec::new();
    for id in 0..slots {
        let off = usize::from(u16_at(b, vtable + 4 + 2 * id)?);
        if off != 0 {
            fields.push((id, table + off));
        }
    }
    Some((fields, slots))
}

/// The positions of the elements of the vector of offsets whose offset field is at `field`.
fn vector_elements(b: &[u8], field: usize) -> Option<Vec<usize>> {
    let vector = deref(b, field)?;
    let len = u32_at(b, vector)? as usize;
    (0..len).map(|i| vector.checked_add(4 + 4 * i)).collect()
}

/// A growing byte image of the new head, where offsets are resolved once positions are known.
struct Head {
    bytes: Vec<u8>,
}

impl Head {
    fn align(&mut self, to: usize) {
        while !self.bytes.len().is_multiple_of(to) {
            self.bytes.push(0);
        }
    }

    fn u32(&mut self, v: u32) -> usize {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(&v.to_le_bytes());
        at
    }

    fn patch(&mut self, at: usize, v: u32) {
        if let Some(slot) = self.bytes.get_mut(at..at + 4) {
            slot.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// `bytes` (the file `model` was read from) with the metadata entry `name` holding `data`,
/// replacing an entry of that name.
///
/// # Errors
///
/// Why the file cannot be rewritten safely.
pub fn with_metadata(
    bytes: &[u8],
    model: &Model,
    name: &str,
    data: &[u8],
) -> Result<Vec<u8>, String> {
    let refuse = |r: &str| r.to_owned();
    if model.buffers.iter().any(|b| b.offset > 1) {
        return Err(refuse(
            "the model stores buffer data after the flatbuffer (Buffer.offset), whose positions count from the file start and would move",
        ));
    }
    let malformed =
        || refuse("the model's root table could not be followed (a bug: it was verified)");
    let root = deref(bytes, 0).ok_or_else(malformed)?;
    let (fields, _) = table_fields(bytes, root).ok_or_else(malformed)?;
    if let Some((id, _)) = fields.iter().find(|(id, _)| *id >= MODEL_FIELDS.len()) {
        return Err(format!(
            "the Model table has field {id}, which this version does not know; copying it could break the file"
        ));
    }
    let old_buffers = fields
        .iter()
        .find(|(id, _)| *id == FIELD_BUFFERS)
        .map(|&(_, at)| vector_elements(bytes, at).ok_or_else(malformed))
        .transpose()?
        .unwrap_or_default();
    // Buffer 0 must stay the empty sentinel: a model without buffers gets one.
    let sentinel_needed = old_buffers.is_empty();
    let plan_buffer = old_buffers.len() + usize::from(sentinel_needed);
    let old_metadata: Vec<usize> = fields
        .iter()
        .find(|(id, _)| *id == FIELD_METADATA)
        .map(|&(_, at)| vector_elements(bytes, at).ok_or_else(malformed))
        .transpose()?
        .unwrap_or_default()
        .into_iter()
        .filter(|&element| {
            // Keep every entry but an old one of this name.
            let Some(table) = deref(bytes, element) else {
                return true;
            };
            let entry = table_fields(bytes, table)
                .and_then(|(f, _)| f.into_iter().find(|(id, _)| *id == 0))
                .and_then(|(_, at)| deref(bytes, at))
                .and_then(|s| {
                    let len = u32_at(bytes, s)? as usize;
                    bytes.get(s + 4..s + 4 + len)
                });
            entry != Some(name.as_bytes())
        })
        .collect();

    // Layout of the head: [root offset][TFL3][vtable][Model table][buffers vector]
    // [metadata vector][new Buffer tables, Metadata table, name, data], padded to 16.
    let mut h = Head { bytes: Vec::new() };
    let root_field = h.u32(0);
    h.bytes.extend_from_slice(b"TFL3");
    // The vtable: all ten known fields.
    let slots = MODEL_FIELDS.len();
    let vt_len = 4 + 2 * slots;
    let table_size = 4 + 4 * slots;
    let vtable = h.bytes.len();
    h.bytes
        .extend_from_slice(&u16::try_from(vt_len).unwrap_or(0).to_le_bytes());
    h.bytes
        .extend_from_slice(&u16::try_from(table_size).unwrap_or(0).to_le_bytes());
    for id in 0..slots {
        let present =
            id == FIELD_BUFFERS || id == FIELD_METADATA || fields.iter().any(|(f, _)| *f == id);
        let off = if present { 4 + 4 * id } else { 0 };
        h.bytes
            .extend_from_slice(&u16::try_from(off).unwrap_or(0).to_le_bytes());
    }
    h.align(4);
    let table = h.bytes.len();
    h.u32(u32::try_from(table - vtable).unwrap_or(0));
    let field_pos: Vec<usize> = (0..slots).map(|_| h.u32(0)).collect();
    h.patch(root_field, u32::try_from(table).unwrap_or(0));

    // The buffers vector: old entries, a sentinel if there were none, then ours.
    h.align(4);
    let buffers_vec =
        h.u32(u32::try_from(old_buffers.len() + usize::from(sentinel_needed) + 1).unwrap_or(0));
    let old_buffer_slots: Vec<usize> = old_buffers.iter().map(|_| h.u32(0)).collect();
    let sentinel_slot = sentinel_needed.then(|| h.u32(0));
    let plan_buffer_slot = h.u32(0);
    // The metadata vector: kept entries, then ours.
    let metadata_vec = h.u32(u32::try_from(old_metadata.len() + 1).unwrap_or(0));
    let old_metadata_slots: Vec<usize> = old_metadata.iter().map(|_| h.u32(0)).collect();
    let our_metadata_slot = h.u32(0);

    // A Buffer table with no fields (the sentinel), our Buffer table (data only), our Metadata
    // table (name, buffer), each with its own small vtable written just before it.
    let empty_vtable = h.bytes.len();
    h.bytes.extend_from_slice(&4u16.to_le_bytes());
    h.bytes.extend_from_slice(&4u16.to_le_bytes());
    let sentinel_table = sentinel_needed.then(|| {
        h.align(4);
        let t = h.bytes.len();
        h.u32(u32::try_from(t - empty_vtable).unwrap_or(0));
        t
    });
    let buffer_vtable = h.bytes.len();
    h.bytes.extend_from_slice(&6u16.to_le_bytes());
    h.bytes.extend_from_slice(&8u16.to_le_bytes());
    h.bytes.extend_from_slice(&4u16.to_le_bytes());
    h.align(4);
    let buffer_table = h.bytes.len();
    h.u32(u32::try_from(buffer_table - buffer_vtable).unwrap_or(0));
    let buffer_data_field = h.u32(0);
    let meta_vtable = h.bytes.len();
    h.bytes.extend_from_slice(&8u16.to_le_bytes());
    h.bytes.extend_from_slice(&12u16.to_le_bytes());
    h.bytes.extend_from_slice(&4u16.to_le_bytes());
    h.bytes.extend_from_slice(&8u16.to_le_bytes());
    h.align(4);
    let meta_table = h.bytes.len();
    h.u32(u32::try_from(meta_table - meta_vtable).unwrap_or(0));
    let meta_name_field = h.u32(0);
    h.u32(u32::try_from(plan_buffer).unwrap_or(u32::MAX));
    let name_string = h.u32(u32::try_from(name.len()).unwrap_or(0));
    h.bytes.extend_from_slice(name.as_bytes());
    h.bytes.push(0);
    // The entry's data: a [ubyte] vector whose data starts 16-byte aligned (force_align: 16).
    while !(h.bytes.len() + 4).is_multiple_of(16) {
        h.bytes.push(0);
    }
    let data_vector = h.u32(u32::try_from(data.len()).unwrap_or(0));
    h.bytes.extend_from_slice(data);
    h.align(16);
    let shift = h.bytes.len();

    // Resolve every offset now that the head's size (the shift of the original bytes) is known.
    let rel = |from: usize, to: usize| u32::try_from(to - from).unwrap_or(0);
    for &(id, at) in &fields {
        let Some(&pos) = field_pos.get(id) else {
            continue;
        };
        if MODEL_FIELDS.get(id) == Some(&false) {
            let v = u32_at(bytes, at).ok_or_else(malformed)?;
            h.patch(pos, v);
        } else if id != FIELD_BUFFERS && id != FIELD_METADATA {
            let target = deref(bytes, at).ok_or_else(malformed)?;
            h.patch(pos, rel(pos, target + shift));
        }
    }
    if let Some(&pos) = field_pos.get(FIELD_BUFFERS) {
        h.patch(pos, rel(pos, buffers_vec));
    }
    if let Some(&pos) = field_pos.get(FIELD_METADATA) {
        h.patch(pos, rel(pos, metadata_vec));
    }
    for (&slot, &element) in old_buffer_slots.iter().zip(&old_buffers) {
        let target = deref(bytes, element).ok_or_else(malformed)?;
        h.patch(slot, rel(slot, target + shift));
    }
    if let (Some(slot), Some(t)) = (sentinel_slot, sentinel_table) {
        h.patch(slot, rel(slot, t));
    }
    h.patch(plan_buffer_slot, rel(plan_buffer_slot, buffer_table));
    for (&slot, &element) in old_metadata_slots.iter().zip(&old_metadata) {
        let target = deref(bytes, element).ok_or_else(malformed)?;
        h.patch(slot, rel(slot, target + shift));
    }
    h.patch(our_metadata_slot, rel(our_metadata_slot, meta_table));
    h.patch(buffer_data_field, rel(buffer_data_field, data_vector));
    h.patch(meta_name_field, rel(meta_name_field, name_string));

    let mut out = h.bytes;
    out.extend_from_slice(bytes);
    if out.len() > MAX_MODEL_BYTES {
        return Err(refuse(
            "the model with its new metadata would exceed the flatbuffer format's 2 GiB",
        ));
    }
    Ok(out)
}
