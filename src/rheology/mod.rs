//! Liquids whose viscosity depends on how fast they are sheared (issue 45; PHYSICS_NOTES §8):
//! ketchup and paint thin as they flow, toothpaste and whipped cream hold their shape until
//! pushed past a yield stress.
//!
//! A generalised Newtonian liquid has, at each point, a viscosity μ(γ̇) set by its shear rate
//! γ̇ = √(2 D:D), D the strain-rate tensor ([`shear_rate`]). The laws here are the standard
//! ones rheologists fit to measured flow curves, in their units (Pa, Pa·sⁿ, s⁻¹):
//! - power law μ = K γ̇ⁿ⁻¹ (n < 1 thins, n > 1 thickens);
//! - Cross μ = μ∞ + (μ₀ − μ∞) / (1 + (λγ̇)ᵐ), and Carreau μ = μ∞ + (μ₀ − μ∞)(1 + (λγ̇)²)^((n−1)/2):
//!   thinning between a resting and a fast plateau;
//! - Herschel–Bulkley τ = τ_y + K γ̇ⁿ above the yield stress τ_y, no flow below (Bingham: n = 1),
//!   regularised after Papanastasiou (1987): μ = K γ̇ⁿ⁻¹ + τ_y (1 − e^(−mγ̇)) / γ̇. Below the
//!   yield stress it is not rigid but very stiff, and the implicit viscosity solve stays well
//!   posed.
//!
//! Every law is capped at `max_viscosity`, the viscosity of liquid at rest (an unyielded
//! plug, or a power-law thinner at γ̇ → 0 where μ → ∞): bounded, so the solve's condition
//! number is bounded too. A solve then iterates on μ lagged from the velocities it starts
//! from (Picard), since μ depends on the answer.

pub mod shear_rate;

use serde::{Deserialize, Serialize};

/// How a liquid's viscosity follows its shear rate. Viscosities in Pa·s, stresses in Pa,
/// consistencies K in Pa·sⁿ, times λ in s, rates in s⁻¹.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq)]
#[serde(tag = "law", rename_all = "snake_case")]
pub enum Rheology {
    /// The material's own `viscosity`, whatever the shear (honey, syrup).
    #[default]
    Newtonian,
    /// μ = K γ̇ⁿ⁻¹.
    PowerLaw {
        consistency: f32,
        index: f32,
        max_viscosity: f32,
    },
    /// μ = μ∞ + (μ₀ − μ∞) / (1 + (λγ̇)ᵐ).
    Cross {
        zero_shear: f32,
        infinite_shear: f32,
        time: f32,
        exponent: f32,
    },
    /// μ = μ∞ + (μ₀ − μ∞)(1 + (λγ̇)²)^((n−1)/2).
    Carreau {
        zero_shear: f32,
        infinite_shear: f32,
        time: f32,
        index: f32,
    },
    /// τ = τ_y + K γ̇ⁿ above τ_y (Bingham at n = 1), regularised by Papanastasiou's
    /// exponent m (s): μ = K γ̇ⁿ⁻¹ + τ_y (1 − e^(−mγ̇)) / γ̇, capped at `max_viscosity`.
    HerschelBulkley {
        yield_stress: f32,
        consistency: f32,
        index: f32,
        regularisation: f32,
        max_viscosity: f32,
    },
}

impl Rheology {
    /// A Bingham plastic: yield stress τ_y (Pa) and plastic viscosity μ_p (Pa·s).
    pub fn bingham(yield_stress: f32, plastic_viscosity: f32, max_viscosity: f32) -> Rheology {
        Rheology::HerschelBulkley {
            yield_stress,
            consistency: plastic_viscosity,
            index: 1.0,
            regularisation: max_viscosity / yield_stress.max(f32::MIN_POSITIVE),
            max_viscosity,
        }
    }

    /// The viscosity (Pa·s) at shear rate `shear_rate` (s⁻¹); `newtonian` is the material's
    /// own viscosity, used by [`Rheology::Newtonian`].
    pub fn viscosity(&self, shear_rate: f32, newtonian: f32) -> f32 {
        // Rates are magnitudes; a tiny floor keeps γ̇ⁿ⁻¹ and 1/γ̇ finite at rest, where the cap
        // decides anyway.
        let rate = shear_rate.abs().max(1e-12);
        match *self {
            Rheology::Newtonian => newtonian,
            Rheology::PowerLaw {
                consistency,
                index,
                max_viscosity,
            } => (consistency * rate.powf(index - 1.0)).min(max_viscosity),
            Rheology::Cross {
                zero_shear,
                infinite_shear,
                time,
                exponent,
            } => {
                infinite_shear
                    + (zero_shear - infinite_shear) / (1.0 + (time * rate).powf(exponent))
            }
            Rheology::Carreau {
                zero_shear,
                infinite_shear,
                time,
                index,
            } => {
                let thinning = (1.0 + (time * rate).powi(2)).powf(0.5 * (index - 1.0));
                infinite_shear + (zero_shear - infinite_shear) * thinning
            }
            Rheology::HerschelBulkley {
                yield_stress,
                consistency,
                index,
                regularisation,
                max_viscosity,
            } => {
                // (1 − e^(−mγ̇)) / γ̇ → m as γ̇ → 0; exp_m1 keeps it exact there.
                let plastic = -(-regularisation * rate).exp_m1() / rate;
                (consistency * rate.powf(index - 1.0) + yield_stress * plastic).min(max_viscosity)
            }
        }
    }

    /// The shear stress (Pa) the law gives at `shear_rate`: μ(γ̇) γ̇, the flow curve a
    /// rheometer measures.
    pub fn stress(&self, shear_rate: f32, newtonian: f32) -> f32 {
        self.viscosity(shear_rate, newtonian) * shear_rate.abs()
    }

    /// Whether the law needs shear rates at all.
    pub fn is_newtonian(&self) -> bool {
        matches!(self, Rheology::Newtonian)
    }

    /// Why these constants cannot describe a liquid, if they cannot: a negative or non-finite
    /// viscosity, stress, time or index, or a cap below what the law asks at high shear.
    pub fn problem(&self) -> Option<String> {
        let named: Vec<(&str, f32)> = match *self {
            Rheology::Newtonian => vec![],
            Rheology::PowerLaw {
                consistency,
                index,
                max_viscosity,
            } => vec![
                ("consistency K (Pa·sⁿ)", consistency),
                ("flow index n", index),
                ("viscosity at rest (Pa·s)", max_viscosity),
            ],
            Rheology::Cross {
                zero_shear,
                infinite_shear,
                time,
                exponent,
            } => vec![
                ("zero-shear viscosity μ₀ (Pa·s)", zero_shear),
                ("infinite-shear viscosity μ∞ (Pa·s)", infinite_shear),
                ("time constant λ (s)", time),
                ("exponent m", exponent),
            ],
            Rheology::Carreau {
                zero_shear,
                infinite_shear,
                time,
                index,
            } => vec![
                ("zero-shear viscosity μ₀ (Pa·s)", zero_shear),
                ("infinite-shear viscosity μ∞ (Pa·s)", infinite_shear),
                ("time constant λ (s)", time),
                ("flow index n", index),
            ],
            Rheology::HerschelBulkley {
                yield_stress,
                consistency,
                index,
                regularisation,
                max_viscosity,
            } => vec![
                ("yield stress τ_y (Pa)", yield_stress),
                ("consistency K (Pa·sⁿ)", consistency),
                ("flow index n", index),
                ("regularisation m (s)", regularisation),
                ("viscosity at rest (Pa·s)", max_viscosity),
            ],
        };
        if let Some((name, value)) = named.iter().find(|(_, v)| !v.is_finite() || *v < 0.0) {
            return Some(format!(
                "{name} is {value}: it must be a number of at least 0"
            ));
        }
        let positive =
            |name: &str, value: f32| (value <= 0.0).then(|| format!("{name} must be above 0"));
        match *self {
            Rheology::PowerLaw {
                index,
                max_viscosity,
                ..
            } => positive("flow index n", index)
                .or_else(|| positive("viscosity at rest (Pa·s)", max_viscosity)),
            Rheology::Cross {
                zero_shear,
                infinite_shear,
                ..
            }
            | Rheology::Carreau {
                zero_shear,
                infinite_shear,
                ..
            } if infinite_shear > zero_shear => Some(format!(
                "infinite-shear viscosity μ∞ ({infinite_shear} Pa·s) is above the zero-shear \
                     μ₀ ({zero_shear} Pa·s): a thinning law needs μ∞ ≤ μ₀"
            )),
            Rheology::HerschelBulkley {
                consistency,
                index,
                max_viscosity,
                ..
            } => positive("flow index n", index)
                .or_else(|| positive("viscosity at rest (Pa·s)", max_viscosity))
                .or_else(|| {
                    (consistency > max_viscosity).then(|| {
                        format!(
                            "viscosity at rest ({max_viscosity} Pa·s) is below the consistency \
                             K ({consistency}): the cap would hide the law"
                        )
                    })
                }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, relative: f32) -> bool {
        (a - b).abs() <= relative * b.abs()
    }

    #[test]
    fn newtonian_is_the_materials_viscosity_at_any_rate() {
        for rate in [0.0, 1e-3, 1.0, 1e4] {
            assert_eq!(Rheology::Newtonian.viscosity(rate, 19.0), 19.0);
        }
    }

    #[test]
    fn a_power_law_thins_by_its_index_and_is_capped_at_rest() {
        let ketchup_like = Rheology::PowerLaw {
            consistency: 18.7,
            index: 0.27,
            max_viscosity: 1e4,
        };
        // A decade faster, a decade times 10^(n−1) thinner.
        let ratio = ketchup_like.viscosity(10.0, 0.0) / ketchup_like.viscosity(1.0, 0.0);
        assert!(close(ratio, 10f32.powf(-0.73), 1e-5), "{ratio}");
        assert!(close(ketchup_like.viscosity(1.0, 0.0), 18.7, 1e-6));
        assert_eq!(ketchup_like.viscosity(0.0, 0.0), 1e4);
        // n = 1 is Newtonian.
        let newtonian = Rheology::PowerLaw {
            consistency: 5.0,
            index: 1.0,
            max_viscosity: 1e4,
        };
        assert!(close(newtonian.viscosity(123.0, 0.0), 5.0, 1e-6));
    }

    #[test]
    fn cross_and_carreau_run_between_their_plateaus() {
        let cross = Rheology::Cross {
            zero_shear: 100.0,
            infinite_shear: 0.1,
            time: 2.0,
            exponent: 0.8,
        };
        let carreau = Rheology::Carreau {
            zero_shear: 100.0,
            infinite_shear: 0.1,
            time: 2.0,
            index: 0.4,
        };
        for law in [cross, carreau] {
            assert!(close(law.viscosity(1e-9, 0.0), 100.0, 1e-4));
            assert!(close(law.viscosity(1e9, 0.0), 0.1, 1e-2));
            let mut last = f32::INFINITY;
            for rate in [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0] {
                let mu = law.viscosity(rate, 0.0);
                assert!(mu < last, "{law:?} thins monotonically");
                last = mu;
            }
        }
        // Cross at λγ̇ = 1 is halfway between its plateaus.
        assert!(close(cross.viscosity(0.5, 0.0), 0.5 * (100.0 + 0.1), 1e-6));
    }

    #[test]
    fn a_bingham_plastic_flows_at_its_yield_stress_plus_plastic_viscosity() {
        let law = Rheology::bingham(30.0, 2.0, 1e5);
        // Well above yield, τ = τ_y + μ_p γ̇ (the regularisation's e^(−mγ̇) long gone).
        for rate in [1.0, 10.0, 100.0] {
            assert!(close(law.stress(rate, 0.0), 30.0 + 2.0 * rate, 1e-5));
        }
        // At rest it is very stiff but finite: the cap.
        assert!(close(law.viscosity(0.0, 0.0), 1e5, 1e-5));
        // The stress below yield stays under τ_y: it creeps, it does not flow.
        assert!(law.stress(1e-5, 0.0) < 30.0);
    }

    #[test]
    fn herschel_bulkley_adds_a_power_law_above_yield() {
        let law = Rheology::HerschelBulkley {
            yield_stress: 20.0,
            consistency: 5.0,
            index: 0.5,
            regularisation: 1e3,
            max_viscosity: 1e5,
        };
        for rate in [1.0, 16.0, 100.0] {
            assert!(close(law.stress(rate, 0.0), 20.0 + 5.0 * rate.sqrt(), 1e-5));
        }
    }

    #[test]
    fn constants_that_describe_no_liquid_are_named() {
        let negative = Rheology::bingham(-1.0, 2.0, 1e5).problem().unwrap();
        assert!(negative.contains("yield stress"), "{negative}");
        let nan = Rheology::PowerLaw {
            consistency: f32::NAN,
            index: 0.5,
            max_viscosity: 1e4,
        };
        assert!(nan.problem().unwrap().contains("consistency"));
        let upside_down = Rheology::Cross {
            zero_shear: 1.0,
            infinite_shear: 10.0,
            time: 1.0,
            exponent: 1.0,
        };
        assert!(upside_down.problem().unwrap().contains("μ∞"));
        assert_eq!(Rheology::bingham(30.0, 2.0, 1e5).problem(), None);
        assert_eq!(Rheology::Newtonian.problem(), None);
    }

    #[test]
    fn laws_round_trip_through_json_with_their_names() {
        let law = Rheology::bingham(30.0, 2.0, 1e5);
        let text = serde_json::to_string(&law).unwrap();
        assert!(text.contains("\"law\":\"herschel_bulkley\""), "{text}");
        assert_eq!(serde_json::from_str::<Rheology>(&text).unwrap(), law);
    }
}
