//! Payments and their refunds. Amounts are in minor units (cents). A refund may be
//! asked for in another currency; it is converted at the given rate and rounded to
//! the cent.

/// A currency a payment or a refund is made in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Currency {
    Eur,
    Usd,
}

/// Why a refund was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum RefundError {
    /// A refund of nothing.
    Zero,
    /// More than what is left of the payment.
    ExceedsPayment { left_cents: u64 },
}

/// A payment received, and how much of it was refunded so far.
#[derive(Debug)]
pub struct Payment {
    currency: Currency,
    amount_cents: u64,
    refunded_cents: u64,
}

impl Payment {
    pub fn new(currency: Currency, amount_cents: u64) -> Payment {
        Payment {
            currency,
            amount_cents,
            refunded_cents: 0,
        }
    }

    /// How much was refunded so far, in the payment's currency.
    pub fn refunded_cents(&self) -> u64 {
        self.refunded_cents
    }

    /// Refunds `amount_cents` of `currency`, converted with `rate` (units of the
    /// payment's currency for one unit of `currency`). Returns the amount refunded,
    /// in the payment's currency.
    pub fn refund(
        &mut self,
        amount_cents: u64,
        currency: Currency,
        rate: f64,
    ) -> Result<u64, RefundError> {
        if amount_cents == 0 {
            return Err(RefundError::Zero);
        }
        let left_cents = self.amount_cents - self.refunded_cents;
        if amount_cents > left_cents {
            return Err(RefundError::ExceedsPayment { left_cents });
        }
        let converted = if currency == self.currency {
            amount_cents
        } else {
            (amount_cents as f64 * rate).round() as u64
        };
        self.refunded_cents += converted;
        Ok(converted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_refund_returns_the_whole_payment() {
        let mut payment = Payment::new(Currency::Eur, 10_00);
        assert_eq!(payment.refund(10_00, Currency::Eur, 1.0), Ok(10_00));
        assert_eq!(payment.refunded_cents(), 10_00);
    }

    #[test]
    fn partial_refunds_add_up() {
        let mut payment = Payment::new(Currency::Eur, 10_00);
        assert_eq!(payment.refund(3_00, Currency::Eur, 1.0), Ok(3_00));
        assert_eq!(payment.refund(7_00, Currency::Eur, 1.0), Ok(7_00));
        assert_eq!(payment.refunded_cents(), 10_00);
    }

    #[test]
    fn a_refund_beyond_what_is_left_is_refused() {
        let mut payment = Payment::new(Currency::Eur, 10_00);
        payment.refund(6_00, Currency::Eur, 1.0).unwrap();
        assert_eq!(
            payment.refund(5_00, Currency::Eur, 1.0),
            Err(RefundError::ExceedsPayment { left_cents: 4_00 })
        );
    }

    #[test]
    fn a_refund_in_another_currency_is_converted_and_rounded() {
        let mut payment = Payment::new(Currency::Eur, 10_00);
        assert_eq!(payment.refund(1_00, Currency::Usd, 0.925), Ok(93));
    }

    #[test]
    fn a_zero_refund_is_refused() {
        let mut payment = Payment::new(Currency::Eur, 10_00);
        assert_eq!(
            payment.refund(0, Currency::Eur, 1.0),
            Err(RefundError::Zero)
        );
    }
}
