//! The lists' exactness, checked against every pair: the near lists must hold every liquid
//! pair within the force reach, the contact lists every pair within contact, and the object
//! lists every object particle within the object reach, however the particles moved.

use glam::Vec3;

use super::{LiquidPairs, Neighbourhoods};
use crate::sim::params::Params;
use crate::sim::tests::{setup, RADIUS};
use crate::sim::LiquidParticles;

/// Asserts that the near and contact lists hold every liquid pair within their reach.
fn assert_liquid_lists_exact(
    round: u32,
    p: &Params,
    lists: &Neighbourhoods,
    contacts: &LiquidPairs,
    x: &[Vec3],
) {
    let n = x.len();
    for i in 0..n {
        for j in (0..n).filter(|&j| j != i) {
            let d = x[i].distance(x[j]);
            if d <= p.force_reach {
                assert!(
                    lists.near.list.of(i).contains(j as u32),
                    "round {round}: near {i} misses {j} at {d}"
                );
            }
            if d <= p.liquid_contact {
                assert!(
                    contacts.list.of(i).contains(j as u32),
                    "round {round}: contact {i} misses {j} at {d}"
                );
            }
        }
    }
}

/// Asserts that the object lists hold every object particle within the object reach of each
/// liquid particle; returns how many such pairs there were.
fn assert_object_lists_exact(
    round: u32,
    p: &Params,
    lists: &Neighbourhoods,
    x: &[Vec3],
    objects: &[Vec3],
) -> usize {
    let mut met = 0;
    for (i, x) in x.iter().enumerate() {
        for (k, o) in objects.iter().enumerate() {
            if x.distance(*o) <= p.object_reach {
                met += 1;
                assert!(
                    lists.objects.of(i).contains(k as u32),
                    "round {round}: liquid {i} at {x} misses object {k} at {o}"
                );
            }
        }
    }
    met
}

#[test]
fn object_lists_stay_exact_as_liquid_falls_onto_an_obstacle() {
    let (_, p, mut liquid) = setup(4);
    for x in &mut liquid.position {
        *x += Vec3::new(0.0, 0.0, 0.06);
    }
    // A plate of object particles at z = 0, spaced r.
    let plate: Vec<Vec3> = (-15..=15)
        .flat_map(|i| (-15..=15).map(move |j| Vec3::new(i as f32, j as f32, 0.0) * RADIUS))
        .collect();
    let mut lists = Neighbourhoods::sort_and_build(&p, &mut liquid, &plate, None);
    let mut contacts = lists.contacts(&p, &liquid.position);
    let mut met = 0;
    // Fall by 0.4 r per move, as far as the plate and a little past it.
    for round in 0..90 {
        for x in &mut liquid.position {
            x.z -= 0.4 * RADIUS;
        }
        lists.refresh_for_contacts(&mut contacts, &p, &liquid.position, Some(&plate));
        met += assert_object_lists_exact(round, &p, &lists, &liquid.position, &plate);
    }
    assert!(
        met > 1000,
        "the liquid must actually reach the plate ({met} contacts)"
    );
}

/// A small block of liquid and one object particle beyond its outermost particle (its tip)
/// along x, with the lists built.
struct ObjectBeyondTheTip {
    p: Params,
    liquid: LiquidParticles,
    object: [Vec3; 1],
    /// The tip's index (after the build's sort).
    tip: usize,
    lists: Neighbourhoods,
    contacts: LiquidPairs,
}

/// `ObjectBeyondTheTip` with the object `beyond` skins further than the object lists' reach
/// (object reach + skin) from the tip.
fn an_object_beyond_the_tip(beyond: f32) -> ObjectBeyondTheTip {
    let (_, p, mut liquid) = setup(4);
    let outermost = |x: &[Vec3]| (0..x.len()).max_by(|&a, &b| x[a].x.total_cmp(&x[b].x));
    let tip = liquid.position[outermost(&liquid.position).unwrap()];
    let object = [tip + Vec3::new(p.object_reach + (1.0 + beyond) * p.skin, 0.0, 0.0)];
    let lists = Neighbourhoods::sort_and_build(&p, &mut liquid, &object, None);
    let tip = outermost(&liquid.position).unwrap();
    let contacts = lists.contacts(&p, &liquid.position);
    ObjectBeyondTheTip {
        p,
        liquid,
        object,
        tip,
        lists,
        contacts,
    }
}

/// An object the liquid's search missed, which then moves back towards it: the liquid
/// particle stays within its allowance of where its objects were last searched, the object
/// within half a skin of where the lists were built, yet the two close by more than the skin.
/// A mover must be searched against where the objects were when the lists were built.
#[test]
fn an_object_a_mover_missed_is_listed_when_it_moves_back() {
    // The object within the lists' reach at first.
    let ObjectBeyondTheTip {
        p,
        mut liquid,
        mut object,
        tip: i,
        mut lists,
        mut contacts,
    } = an_object_beyond_the_tip(-0.65);
    let skin = p.skin;
    assert!(lists.objects.of(i).contains(0));
    // The object moves 0.45 skin away and the particle 0.5 skin the other way, a mover
    // (its allowance is 0.9 of what the objects' motion leaves of the skin, 0.495): a
    // search against where the object stands now would find it beyond reach.
    object[0].x += 0.45 * skin;
    liquid.position[i].x -= 0.5 * skin;
    lists.refresh_for_contacts(&mut contacts, &p, &liquid.position, Some(&object));
    // The object moves back 0.9 skin (0.45 from where it started) and the particle 0.45
    // skin towards it (within its allowance): the two are within the object reach.
    object[0].x -= 0.9 * skin;
    liquid.position[i].x += 0.45 * skin;
    lists.refresh_for_contacts(&mut contacts, &p, &liquid.position, Some(&object));
    assert!(liquid.position[i].distance(object[0]) < p.object_reach - 0.04 * skin);
    assert!(
        lists.objects.of(i).contains(0),
        "the particle misses the object"
    );
}

/// An object beyond the lists' reach moves towards a liquid particle (less than half a skin:
/// the lists stand), and then, while the objects stand still (the density passes' refreshes,
/// which are not told where the objects are), the particle drifts towards it. Its allowance
/// must count the objects' motion since the lists were built, measured at the last refresh
/// that was told it: counted as none, the particle drifted 0.8 skin without a search, and
/// the two met within the object reach unlisted.
#[test]
fn a_particle_drifting_towards_objects_that_moved_is_searched_in_time() {
    let ObjectBeyondTheTip {
        p,
        mut liquid,
        mut object,
        tip: i,
        mut lists,
        mut contacts,
    } = an_object_beyond_the_tip(0.02);
    let skin = p.skin;
    assert!(!lists.objects.of(i).contains(0));
    object[0].x -= 0.45 * skin;
    lists.refresh_for_contacts(&mut contacts, &p, &liquid.position, Some(&object));
    for round in 1..=8 {
        liquid.position[i].x += 0.1 * skin;
        lists.refresh_for_density(&p, &liquid.position);
        assert_object_lists_exact(round, &p, &lists, &liquid.position, &object);
    }
    assert!(liquid.position[i].distance(object[0]) < p.object_reach - 0.2 * skin);
}

#[test]
fn liquid_lists_stay_exact_as_a_few_particles_or_many_move() {
    let (_, p, mut liquid) = setup(5);
    let mut lists = Neighbourhoods::sort_and_build(&p, &mut liquid, &[], None);
    let mut contacts = lists.contacts(&p, &liquid.position);
    let mut noise = crate::validation::noise::uniform_noise(7);
    // Rounds in which every 50th particle jumps up to 2 r along each axis, into the lists of
    // particles it was far from (a patch), alternate with rounds in which all drift by up to
    // 0.3 r (a rebuild). Every third round is a new substep's, whose contact lists are cut
    // afresh from the near lists; in the others they are patched like a move's.
    for round in 0..12 {
        let (every, jump) = if round % 2 == 0 { (50, 4.0) } else { (1, 0.6) };
        for x in liquid.position.iter_mut().step_by(every) {
            *x += Vec3::new(noise(), noise(), noise()) * (jump * RADIUS);
        }
        if round % 3 == 0 {
            lists.refresh_for_substep(&p, &liquid.position, Some(&[]));
            contacts = lists.contacts(&p, &liquid.position);
        } else {
            lists.refresh_for_density(&p, &liquid.position);
            lists.refresh_for_contacts(&mut contacts, &p, &liquid.position, Some(&[]));
        }
        assert_liquid_lists_exact(round, &p, &lists, &contacts, &liquid.position);
    }
}

/// Every particle sways about its place at its own pace, one in twenty far enough to be a
/// mover now and then, the rest within their allowance, so that movers are searched while
/// their neighbours stand anywhere within it, going either way; an obstacle plate sways
/// under them too. The lists must hold every pair within reach at every refresh, however
/// the particles' searches and their neighbours' swings fall. (Before movers listed their
/// neighbours' drift, this failed at round 20: a pair 4 r apart missing from the near lists.)
#[test]
fn lists_stay_exact_while_every_particle_sways_about_its_place() {
    let (_, p, mut liquid) = setup(5);
    let mut noise = crate::validation::noise::uniform_noise(23);
    // The lattice jittered, so that pairs stand at every distance around the lists' reach.
    for x in &mut liquid.position {
        *x += Vec3::new(noise(), noise(), noise()) * (0.6 * RADIUS);
    }
    let lowest = liquid
        .position
        .iter()
        .map(|x| x.z)
        .fold(f32::INFINITY, f32::min);
    let plate_at: Vec<Vec3> = (-14..=14)
        .flat_map(|i| (-14..=14).map(move |j| (i as f32, j as f32)))
        .map(|(i, j)| Vec3::new(i * RADIUS, j * RADIUS, lowest - 2.0 * RADIUS))
        .collect();
    let mut lists = Neighbourhoods::sort_and_build(&p, &mut liquid, &plate_at, None);
    let home = liquid.position.clone();
    let n = home.len();
    let sway = |noise: &mut dyn FnMut() -> f32, reach: f32| {
        let amplitude = Vec3::new(noise(), noise(), noise()).normalize_or_zero() * reach;
        let pace = Vec3::new(noise(), noise(), noise()).abs() * 1.5 + Vec3::splat(0.3);
        (amplitude, pace)
    };
    // One particle in twenty sways far enough to be a mover now and then (a patch, not a
    // rebuild); the rest sway within their allowance, just short of it.
    let liquid_sway: Vec<(Vec3, Vec3)> = (0..n)
        .map(|i| sway(&mut noise, if i % 20 == 0 { 1.5 } else { 0.49 } * p.skin))
        .collect();
    let plate_sway = sway(&mut noise, 0.9 * p.skin);
    let at = |(amplitude, pace): (Vec3, Vec3), t: f32| {
        amplitude * Vec3::new((pace.x * t).sin(), (pace.y * t).sin(), (pace.z * t).sin())
    };
    let mut contacts = lists.contacts(&p, &liquid.position);
    for round in 1..=200 {
        let t = round as f32 * 0.37;
        for i in 0..n {
            liquid.position[i] = home[i] + at(liquid_sway[i], t);
        }
        let plate: Vec<Vec3> = plate_at
            .iter()
            .map(|o| *o + 0.5 * at(plate_sway, t))
            .collect();
        lists.refresh_for_contacts(&mut contacts, &p, &liquid.position, Some(&plate));
        lists.refresh_for_density(&p, &liquid.position);
        assert_liquid_lists_exact(round, &p, &lists, &contacts, &liquid.position);
        assert_object_lists_exact(round, &p, &lists, &liquid.position, &plate);
    }
}
