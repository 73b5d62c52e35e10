use morris::*;
fn main() {
    for v in Variant::all() {
        let s = Position::start(v);
        let t = std::time::Instant::now();
        let perft: Vec<u64> = (1..=4).map(|d| v.perft(&s, d)).collect();
        println!("{} syms={} links={} perft={:?} {:?}", v.name, v.board.symmetries().len(),
          (0..v.board.len() as u8).map(|p| v.board.links(p).count()).sum::<u32>()/2, perft, t.elapsed());
    }
    let s = Variant::standard();
    print!("{}", Position::start(s).picture(s.board));
    let m = Variant::by_name("morabaraba").unwrap();
    print!("{}", Position::start(m).picture(m.board));
    let six = Variant::by_name("six").unwrap();
    print!("{}", Position::start(six).picture(six.board));
    println!("{}", Position::start(six).notation(six.board));
}
