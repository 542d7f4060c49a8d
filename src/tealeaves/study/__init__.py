"""Human evaluation studies (Chang et al. 2009 §3; Hoyle et al. 2021 §5)."""
